import type { CreatedWebhook, NewWebhook } from '~shared/schemas/webhooks'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { insertWebhook, newWebhookId, newWebhookSecret, toWebhook } from '~server/data/webhooks/webhooks'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'
import type { WebhookAction } from './webhook-rules'

/** Adds an endpoint. Its signing secret is in this answer only; it is kept sealed, to sign with. */
export async function createWebhook(ctx: AppContext, action: WebhookAction, input: NewWebhook): Promise<CreatedWebhook> {
  const secret = newWebhookSecret()
  return commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const row = await insertWebhook(c.trx, {
      id: newWebhookId(),
      url: input.url,
      description: input.description ?? '',
      events: input.events,
      secret: ctx.webhookSealer.seal(secret),
      now: c.now,
    })
    await c.record({
      userId: action.actorId,
      kind: 'other',
      activity: `Created webhook ${row.url}`,
      details: `${row.id}; events: ${row.events.join(', ')}`,
      ip: action.ip,
    })
    return { webhook: toWebhook(row), secret }
  })
}
