import { addSeconds } from '~server/clock'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { newWebhookSecret, updateWebhookRow } from '~server/data/webhooks/webhooks'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'
import { lockExistingWebhook, type WebhookAction } from './webhook-rules'

/** How long a replaced secret keeps signing beside the new one, so receivers switch without losing a delivery. */
export const PREVIOUS_SECRET_SECONDS = 24 * 60 * 60

/**
 * A new signing secret, shown once: it signs from now on, and the one it replaces signs beside it
 * for 24 hours (two signatures in `webhook-signature`). A second rotation within those hours drops
 * the oldest: only the two latest sign.
 */
export async function replaceWebhookSecret(ctx: AppContext, action: WebhookAction, id: string): Promise<string> {
  const secret = newWebhookSecret()
  await commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const current = await lockExistingWebhook(c.trx, id)
    await updateWebhookRow(
      c.trx,
      id,
      { secret: ctx.webhookSealer.seal(secret), previous_secret: current.secret, previous_secret_until: addSeconds(c.now, PREVIOUS_SECRET_SECONDS) },
      c.now,
    )
    await c.record({ userId: action.actorId, kind: 'other', activity: `Replaced the secret of webhook ${current.url}`, details: current.id, ip: action.ip })
  })
  return secret
}
