import crypto from 'node:crypto'
import type { Selectable } from 'kysely'
import type { Webhook } from '~shared/schemas/webhooks'
import type { Db, WebhooksTable } from '~server/db/types'

/** Webhook endpoints' rows, mapped to the API's object here only: a secret never leaves in one. */

export type WebhookRow = Selectable<WebhooksTable>

export const newWebhookId = () => `wh_${crypto.randomBytes(12).toString('base64url')}`

/** A signing secret as Standard Webhooks writes it: `whsec_` and base64 of 32 random bytes. */
export const newWebhookSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

export function listWebhooks(db: Db): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().orderBy('created_at').orderBy('id').execute()
}

export function findWebhook(db: Db, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst()
}

export function lockWebhook(db: Db, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

export function insertWebhook(db: Db, input: { id: string; url: string; description: string; events: string[]; secret: Buffer; now: Date }): Promise<WebhookRow> {
  return db
    .insertInto('webhooks')
    .values({ id: input.id, url: input.url, description: input.description, events: input.events, secret: input.secret, created_at: input.now, updated_at: input.now })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export function updateWebhookRow(
  db: Db,
  id: string,
  values: Partial<
    Pick<WebhookRow, 'url' | 'description' | 'events' | 'enabled' | 'disabled_reason' | 'failing_since' | 'secret' | 'previous_secret' | 'previous_secret_until'>
  >,
  now: Date,
): Promise<WebhookRow> {
  return db
    .updateTable('webhooks')
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function deleteWebhookRow(db: Db, id: string): Promise<WebhookRow | undefined> {
  return db.deleteFrom('webhooks').where('id', '=', id).returningAll().executeTakeFirst()
}
