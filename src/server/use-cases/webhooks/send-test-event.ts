import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'
import { lockExistingWebhook, type WebhookAction } from './webhook-rules'

/** A `webhook.test` event for this endpoint alone, whatever events it subscribes to. */
export async function sendTestEvent(ctx: AppContext, action: WebhookAction, id: string): Promise<string> {
  return commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const webhook = await lockExistingWebhook(c.trx, id)
    return c.emit('webhook.test', { webhook: { id: webhook.id, url: webhook.url } }, { webhookId: webhook.id })
  })
}
