import type { Transaction } from 'kysely'
import { webhookMessages } from '~shared/schemas/webhooks'
import { lockWebhook, type WebhookRow } from '~server/data/webhooks/webhooks'
import type { Database } from '~server/db/types'
import { notFound } from '~server/http/errors'

/** Who changes a webhook endpoint, from where: the admin named on the activity entry. */
export interface WebhookAction {
  actorId: string
  ip: string
}

export const webhookNotFound = () => notFound(webhookMessages.notFound, 'WEBHOOK_NOT_FOUND')

/** The endpoint, locked for the change; a 404 when it does not exist (or was just deleted). */
export async function lockExistingWebhook(trx: Transaction<Database>, id: string): Promise<WebhookRow> {
  const webhook = await lockWebhook(trx, id)
  if (!webhook) throw webhookNotFound()
  return webhook
}
