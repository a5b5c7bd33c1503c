import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { deleteWebhookRow } from '~server/data/webhooks/webhooks'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'
import { type WebhookAction, webhookNotFound } from './webhook-rules'

/** Deletes an endpoint; its deliveries go with it (pending ones are dropped). A second delete is a 404. */
export async function deleteWebhook(ctx: AppContext, action: WebhookAction, id: string): Promise<void> {
  await commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const deleted = await deleteWebhookRow(c.trx, id)
    if (!deleted) throw webhookNotFound()
    await c.record({ userId: action.actorId, kind: 'other', activity: `Deleted webhook ${deleted.url}`, details: deleted.id, ip: action.ip })
  })
}
