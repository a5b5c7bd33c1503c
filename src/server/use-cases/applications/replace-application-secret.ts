import { applicationMessages } from '~shared/schemas/applications'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { hashClientSecret, newClientSecret, replaceApplicationSecretHash } from '~server/data/applications/applications'
import { conflict } from '~server/http/errors'
import { type ApplicationAction, lockExistingApplication } from './application-rules'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'

/**
 * A new client secret for a confidential application (or a service application without a key set), shown once. Only the hash is kept, in
 * place of the old one: the old secret stops working as this commits.
 */
export async function replaceApplicationSecret(ctx: AppContext, action: ApplicationAction, id: string): Promise<string> {
  const clientSecret = newClientSecret()
  await commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const application = await lockExistingApplication(c.trx, id)
    if (application.type === 'public') throw conflict(applicationMessages.publicHasNoSecret, 'PUBLIC_APPLICATION')
    if (application.jwks) throw conflict(applicationMessages.jwksHasNoSecret, 'PUBLIC_APPLICATION')
    await replaceApplicationSecretHash(c.trx, id, hashClientSecret(clientSecret), c.now)
    await c.record({
      userId: action.actorId,
      kind: 'applications',
      activity: `Replaced secret of application ${application.name}`,
      details: application.id,
      ip: action.ip,
    })
  })
  return clientSecret
}
