import { webhookMessages } from '~shared/schemas/webhooks'
import type { AppContext } from '~server/context'
import { scheduleRetryNow } from '~server/data/webhooks/deliveries'
import { findWebhook } from '~server/data/webhooks/webhooks'
import { notFound } from '~server/http/errors'
import { webhookNotFound } from './webhook-rules'

/** Sends a delivery again at once, with the same `webhook-id` (whatever its status: a delivered one too). */
export async function retryDelivery(ctx: AppContext, webhookId: string, deliveryId: string): Promise<void> {
  if (!(await findWebhook(ctx.db, webhookId))) throw webhookNotFound()
  if (!(await scheduleRetryNow(ctx.db, webhookId, deliveryId, ctx.clock()))) throw notFound(webhookMessages.deliveryNotFound, 'DELIVERY_NOT_FOUND')
  ctx.onWebhookQueued()
}
