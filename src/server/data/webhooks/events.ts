import crypto from 'node:crypto'
import { type CompiledQuery, sql } from 'kysely'
import type { WebhookEvent } from '~shared/schemas/webhooks'
import { compiledOnce, runNamedStatement } from '~server/db/prepared'
import type { Db } from '~server/db/types'

/**
 * The outbox (decision 0521): an event row, and a delivery row for every enabled endpoint that
 * wants its type, written by one statement inside the transaction of the change the event reports.
 * A rollback takes them with it; a commit makes them as durable as the change.
 */

/** An event's id: the `webhook-id` of every delivery of it, and its id in the feed. */
export const newEventId = () => `msg_${crypto.randomBytes(16).toString('base64url')}`

/** How long the feed keeps events (contract section 12). */
export const FEED_DAYS = 30

export interface NewEvent {
  type: string
  data: Record<string, unknown>
  at: Date
  /** Only to this endpoint, whatever its events and state (a test event). */
  webhookId?: string
}

/**
 * Writes the event and its deliveries; answers the event's id and how many deliveries were queued.
 * A named statement (one for each of its two shapes): it runs in every change that reports one.
 */
export async function insertEvent(db: Db, event: NewEvent): Promise<{ id: string; deliveries: number }> {
  const id = newEventId()
  const values = [id, event.type, JSON.stringify(event.data), event.at] as const
  const statement = event.webhookId ? (toOneStatement ??= eventStatement(db, true)) : (toSubscribersStatement ??= eventStatement(db, false))
  const result = await runNamedStatement(db, event.webhookId ? statement(...values, event.webhookId) : statement(...values))
  return { id, deliveries: Number(result.numAffectedRows ?? 0n) }
}

type EventValues = [id: string, type: string, data: string, at: Date, webhookId?: string]

let toOneStatement: ((...values: EventValues) => CompiledQuery) | undefined
let toSubscribersStatement: ((...values: EventValues) => CompiledQuery) | undefined

const eventStatement = (db: Db, toOne: boolean) => compiledOnce((...values: EventValues) => ({ compile: () => eventQuery(values, toOne).compile(db) }))

function eventQuery([id, type, data, at, webhookId]: EventValues, toOne: boolean) {
  const wanted = toOne ? sql`w.id = ${webhookId}` : sql`w.enabled AND (${type} = ANY (w.events) OR '*' = ANY (w.events))`
  return sql`
    WITH event AS (
      INSERT INTO webhook_events (id, type, data, created_at) VALUES (${id}, ${type}, ${data}::jsonb, ${at})
      RETURNING id
    )
    INSERT INTO webhook_deliveries (id, webhook_id, event_id, next_attempt_at, created_at)
    SELECT 'whd_' || replace(gen_random_uuid()::text, '-', ''), w.id, (SELECT id FROM event), ${at}, ${at}
    FROM webhooks w WHERE ${wanted}`
}

/** The body every delivery of an event sends, and the feed's `data`: as Standard Webhooks shapes it. */
export function eventBody(row: { type: string; data: unknown; created_at: Date }): string {
  return JSON.stringify({ type: row.type, timestamp: row.created_at.toISOString(), data: row.data })
}

/** A feed position: the writing transaction and the event's place in it, opaque to consumers. */
export interface FeedCursor {
  tx: string
  seq: string
}

export const FEED_START: FeedCursor = { tx: '0', seq: '0' }

export function encodeCursor(cursor: FeedCursor): string {
  return Buffer.from(`${cursor.tx}.${cursor.seq}`).toString('base64url')
}

/** The cursor a consumer passed, or null when it is not one of ours. */
export function decodeCursor(text: string): FeedCursor | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) return null
  const match = /^(\d{1,19})\.(\d{1,19})$/.exec(Buffer.from(text, 'base64url').toString('latin1'))
  if (!match) return null
  // xid8 and bigint both stop at 2^63 - 1 for our purposes.
  if (BigInt(match[1]!) > 9223372036854775807n || BigInt(match[2]!) > 9223372036854775807n) return null
  return { tx: match[1]!, seq: match[2]! }
}

/**
 * Events after the cursor, in the order their transactions began and then the order they were
 * written (decision 0523). Only transactions older than every one still running are read: an event
 * whose transaction is still open, or began before one still open, waits, so a cursor handed out
 * never passes an event that commits later.
 */
export async function readFeed(db: Db, input: { after: FeedCursor; limit: number; type?: string | undefined; now: Date }): Promise<WebhookEvent[]> {
  const since = new Date(input.now.getTime() - FEED_DAYS * 24 * 60 * 60 * 1000)
  const { rows } = await sql<{ id: string; type: string; data: Record<string, unknown>; created_at: Date; tx: string; seq: string }>`
    SELECT id, type, data, created_at, tx::text AS tx, seq::text AS seq FROM webhook_events
    WHERE tx < pg_snapshot_xmin(pg_current_snapshot())
      AND (tx, seq) > (${input.after.tx}::xid8, ${input.after.seq}::bigint)
      AND created_at >= ${since}
      ${input.type ? sql`AND type = ${input.type}` : sql``}
    ORDER BY tx, seq
    LIMIT ${input.limit}`.execute(db)
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    timestamp: new Date(row.created_at).toISOString(),
    data: row.data,
    cursor: encodeCursor({ tx: row.tx, seq: row.seq }),
  }))
}

/** Housekeeping: events past the feed's 30 days go, with their deliveries. */
export async function deleteOldEvents(db: Db, now: Date): Promise<void> {
  await db
    .deleteFrom('webhook_events')
    .where('created_at', '<', new Date(now.getTime() - FEED_DAYS * 24 * 60 * 60 * 1000))
    .execute()
}
