import { apiKeyMessages, type CreatedApiKey, type NewApiKey } from '~shared/schemas/api-keys'
import { API_KEY_SHOWN_PREFIX, hashApiKey, newApiKeySecret } from '~server/auth/api-keys'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { insertApiKey, toApiKey } from '~server/data/applications/api-keys'
import { conflict, fieldErrors } from '~server/http/errors'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'
import { type ApplicationAction, lockExistingApplication } from './application-rules'

/**
 * A new API key of a service application (contract section 11, decision 0502): its secret is in
 * this answer only; the database keeps its SHA-256 and its first 12 characters.
 */
export async function createApiKey(ctx: AppContext, action: ApplicationAction, applicationId: string, input: NewApiKey): Promise<CreatedApiKey> {
  const now = ctx.clock()
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null
  if (expiresAt && expiresAt <= now) throw fieldErrors([{ field: 'expiresAt', message: apiKeyMessages.expiresAt }])
  const secret = newApiKeySecret()
  return commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const application = await lockExistingApplication(c.trx, applicationId)
    if (application.type !== 'service') throw conflict(apiKeyMessages.serviceOnly, 'NOT_SERVICE_APPLICATION')
    const row = await insertApiKey(c.trx, {
      applicationId,
      name: input.name,
      prefix: secret.slice(0, API_KEY_SHOWN_PREFIX),
      secretHash: hashApiKey(secret),
      expiresAt,
      now: c.now,
    })
    await c.record({
      userId: action.actorId,
      kind: 'applications',
      activity: `Created API key ${row.name} of application ${application.name}`,
      details: `${application.id}; key ${row.id}${expiresAt ? `; expires ${expiresAt.toISOString()}` : ''}`,
      ip: action.ip,
    })
    return { key: toApiKey(row), secret }
  })
}
