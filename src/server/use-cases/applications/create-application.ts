import crypto from 'node:crypto'
import { applicationMessages, type CreatedApplication, type NewApplication } from '~shared/schemas/applications'
import { fieldErrors } from '~server/http/errors'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { hashClientSecret, insertApplication, newClientId, newClientSecret, toApplication } from '~server/data/applications/applications'
import type { ApplicationAction } from './application-rules'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'

/** Each key of a pasted set must import as a public key (a malformed one is a 400 at `jwks`). */
function assertPublicKeys(keys: Record<string, unknown>[]): void {
  for (const key of keys) {
    try {
      const imported = crypto.createPublicKey({ key: key as crypto.JsonWebKey, format: 'jwk' })
      if (imported.type !== 'public') throw new Error('not a public key')
    } catch {
      throw fieldErrors([{ field: 'jwks', message: applicationMessages.jwks }])
    }
  }
}

/**
 * Registers an application. A confidential one gets a client secret: in this answer only, kept as
 * its SHA-256. A public one (a single-page or mobile app) has none and signs in with PKCE. A
 * service application (contract section 11) holds scopes and gets a client secret too, unless it
 * gave a public key set for `private_key_jwt`: then it has no secret at all.
 */
export async function createApplication(ctx: AppContext, action: ApplicationAction, input: NewApplication): Promise<CreatedApplication> {
  if (input.jwks) assertPublicKeys(input.jwks.keys)
  const clientSecret = input.type === 'confidential' || (input.type === 'service' && !input.jwks) ? newClientSecret() : undefined
  return commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const row = await insertApplication(c.trx, {
      id: newClientId(),
      name: input.name,
      type: input.type,
      secretHash: clientSecret === undefined ? null : hashClientSecret(clientSecret),
      jwks: input.jwks ?? null,
      scopes: input.scopes ?? [],
      redirect_uris: input.redirectUris ?? [],
      post_logout_redirect_uris: input.postLogoutRedirectUris ?? [],
      backchannel_logout_uri: input.backchannelLogoutUri ?? null,
      allowed_roles: input.allowedRoles ?? [],
      first_party: input.firstParty ?? false,
      device_flow: input.deviceFlow ?? false,
      now: c.now,
    })
    await c.record({ userId: action.actorId, kind: 'applications', activity: `Created application ${row.name}`, details: row.id, ip: action.ip })
    const application = toApplication(row)
    await c.emit('application.created', { application })
    return clientSecret === undefined ? { application } : { application, clientSecret }
  })
}
