import { apiKeyMessages } from '~shared/schemas/api-keys'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { deleteApiKeyRow } from '~server/data/applications/api-keys'
import { isUuid } from '~server/data/users/users'
import { notFound } from '~server/http/errors'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'
import { type ApplicationAction, lockExistingApplication } from './application-rules'

export const apiKeyNotFound = () => notFound(apiKeyMessages.notFound, 'API_KEY_NOT_FOUND')

/** Deletes an API key: the next call made with it is refused. A second delete is a 404. */
export async function deleteApiKey(ctx: AppContext, action: ApplicationAction, applicationId: string, keyId: string): Promise<void> {
  if (!isUuid(keyId)) throw apiKeyNotFound()
  await commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const application = await lockExistingApplication(c.trx, applicationId)
    const key = await deleteApiKeyRow(c.trx, applicationId, keyId.toLowerCase())
    if (!key) throw apiKeyNotFound()
    await c.record({
      userId: action.actorId,
      kind: 'applications',
      activity: `Deleted API key ${key.name} of application ${application.name}`,
      details: `${application.id}; key ${key.id}`,
      ip: action.ip,
    })
  })
}
