import type { CreatedApplication, NewApplication } from '~shared/schemas/applications'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { hashClientSecret, insertApplication, newClientId, newClientSecret, toApplication } from '~server/data/applications/applications'
import type { ApplicationAction } from './application-rules'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'

/**
 * Registers an application. A confidential one gets a client secret: in this answer only, kept as
 * its SHA-256. A public one (a single-page or mobile app) has none and signs in with PKCE.
 */
export async function createApplication(ctx: AppContext, action: ApplicationAction, input: NewApplication): Promise<CreatedApplication> {
  const clientSecret = input.type === 'confidential' ? newClientSecret() : undefined
  return commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const row = await insertApplication(c.trx, {
      id: newClientId(),
      name: input.name,
      type: input.type,
      secretHash: clientSecret === undefined ? null : hashClientSecret(clientSecret),
      redirect_uris: input.redirectUris,
      post_logout_redirect_uris: input.postLogoutRedirectUris ?? [],
      backchannel_logout_uri: input.backchannelLogoutUri ?? null,
      allowed_roles: input.allowedRoles ?? [],
      first_party: input.firstParty ?? false,
      now: c.now,
    })
    await c.record({ userId: action.actorId, kind: 'applications', activity: `Created application ${row.name}`, details: row.id, ip: action.ip })
    const application = toApplication(row)
    return clientSecret === undefined ? { application } : { application, clientSecret }
  })
}
