import type { Webhook, WebhookUpdate } from '~shared/schemas/webhooks'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { toWebhook, updateWebhookRow, type WebhookRow } from '~server/data/webhooks/webhooks'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'
import { lockExistingWebhook, type WebhookAction } from './webhook-rules'

/**
 * An admin's edit of an endpoint: address, events, description, enabled. Enabling it again clears
 * why it was disabled and its failing period; its deliveries still waiting are sent again.
 */
export async function editWebhook(ctx: AppContext, action: WebhookAction, id: string, requested: WebhookUpdate): Promise<Webhook> {
  let reenabled = false
  const webhook = await commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const current = await lockExistingWebhook(c.trx, id)
    const values: Parameters<typeof updateWebhookRow>[2] = {}
    const parts: string[] = []
    if (requested.url !== undefined && requested.url !== current.url) {
      values.url = requested.url
      parts.push(`url: ${current.url} → ${requested.url}`)
    }
    if (requested.events !== undefined && requested.events.join(',') !== current.events.join(',')) {
      values.events = requested.events
      parts.push(`events: ${requested.events.join(', ')}`)
    }
    if (requested.description !== undefined && requested.description !== current.description) {
      values.description = requested.description
      parts.push('description changed')
    }
    if (requested.enabled !== undefined && requested.enabled !== current.enabled) {
      Object.assign(values, requested.enabled ? { enabled: true, disabled_reason: null, failing_since: null } : { enabled: false, disabled_reason: null })
      parts.push(requested.enabled ? 'enabled' : 'disabled')
    }
    if (parts.length === 0) return toWebhook(current)
    const updated: WebhookRow = await updateWebhookRow(c.trx, id, values, c.now)
    await c.record({ userId: action.actorId, kind: 'other', activity: `Changed webhook ${current.url}`, details: `${current.id}; ${parts.join('; ')}`, ip: action.ip })
    reenabled = requested.enabled === true && !current.enabled
    return toWebhook(updated)
  })
  if (reenabled) ctx.onWebhookQueued()
  return webhook
}
