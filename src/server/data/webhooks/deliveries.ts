import { type CompiledQuery, sql } from 'kysely'
import type { WebhookDelivery, WebhookDeliveryStatus } from '~shared/schemas/webhooks'
import { compiledOnce, runNamedStatement } from '~server/db/prepared'
import type { Db } from '~server/db/types'

/**
 * Deliveries: one row per event and endpoint. The runner leases due ones (`leased_until` set,
 * their attempt counted) in one statement with `FOR UPDATE SKIP LOCKED`,
 * so that of several instances exactly one makes each attempt (decision 0522), and writes the
 * outcomes of a batch of attempts in one statement (decision 0526).
 */

export interface LeasedDelivery {
  id: string
  webhook_id: string
  event_id: string
  attempts: number
  url: string
  secret: Buffer
  previous_secret: Buffer | null
  previous_secret_until: Date | null
  type: string
  data: unknown
  created_at: Date
}

/**
 * Leases up to `limit` due deliveries of enabled endpoints: at most `room[id]` of an endpoint
 * named there (what this instance may still send it now), at most `perEndpoint` of any other.
 * The lease is `leased_until`, in no index, so that PostgreSQL writes it in place (decision 0564);
 * a delivery whose lease ran out (its instance died on the way) is due again. A named statement:
 * its plan (the due index in order, up to the limit) is the same whatever the values. The chosen
 * deliveries reach the locking as an array, worked out once, and the update joins the locked ones
 * by key: a generic plan made while the table was small had joined every due delivery to the
 * candidates, working them out again for each (14 s a lease with 20,000 due; decision 0569).
 */
export async function leaseDueDeliveries(
  db: Db,
  input: { now: Date; leaseUntil: Date; limit: number; perEndpoint: number; room: ReadonlyMap<string, number> },
): Promise<LeasedDelivery[]> {
  if (input.limit <= 0) return []
  const ids = [...input.room.keys()]
  const free = ids.map((id) => input.room.get(id)!)
  leaseStatement ??= compiledOnce((...values: LeaseValues) => ({ compile: () => leaseQuery(values).compile(db) }))
  const { rows } = await runNamedStatement(db, leaseStatement(ids, free, input.now, input.limit * 20, input.perEndpoint, input.leaseUntil, input.limit))
  return rows
}

type LeaseValues = [ids: string[], free: number[], now: Date, scanned: number, perEndpoint: number, leaseUntil: Date, limit: number]

let leaseStatement: ((...values: LeaseValues) => CompiledQuery<LeasedDelivery>) | undefined

function leaseQuery([ids, free, now, scanned, perEndpoint, leaseUntil, limit]: LeaseValues) {
  const due = sql`status IN ('pending', 'failed') AND next_attempt_at <= ${now} AND (leased_until IS NULL OR leased_until <= ${now})`
  return sql<LeasedDelivery>`
    WITH room AS (
      SELECT * FROM unnest(${ids}::text[], ${free}::int[]) AS r (webhook_id, free)
    ),
    candidates AS (
      SELECT d.id, d.next_attempt_at, row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.id) AS place, coalesce(r.free, ${perEndpoint}::int) AS free
      FROM (
        SELECT id, webhook_id, next_attempt_at FROM webhook_deliveries
        WHERE ${due}
        ORDER BY next_attempt_at LIMIT ${scanned}::int
      ) d
      JOIN webhooks w ON w.id = d.webhook_id AND w.enabled
      LEFT JOIN room r ON r.webhook_id = d.webhook_id
    ),
    locked AS (
      SELECT id FROM webhook_deliveries
      WHERE id = ANY (ARRAY(SELECT id FROM candidates WHERE place <= free ORDER BY next_attempt_at, id LIMIT ${limit}::int)) AND ${due}
      FOR UPDATE SKIP LOCKED
    ),
    leased AS (
      UPDATE webhook_deliveries SET leased_until = ${leaseUntil}, attempts = attempts + 1
      WHERE id IN (SELECT id FROM locked)
      RETURNING id, webhook_id, event_id, attempts
    )
    SELECT l.id, l.webhook_id, l.event_id, l.attempts, w.url, w.secret, w.previous_secret, w.previous_secret_until, e.type, e.data, e.created_at
    FROM leased l JOIN webhooks w ON w.id = l.webhook_id JOIN webhook_events e ON e.id = l.event_id`
}

/** What an attempt came to: the delivery's new state. */
export interface AttemptOutcome {
  id: string
  status: WebhookDeliveryStatus
  at: Date
  nextAttemptAt: Date | null
  responseStatus: number | null
  responseBody: string | null
}

/**
 * Writes the outcomes of several attempts in one statement, and ends the failing period of every
 * endpoint one of them was delivered to (only those that were failing are written).
 */
export async function recordAttempts(db: Db, outcomes: readonly AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return
  const column = <T>(pick: (outcome: AttemptOutcome) => T) => outcomes.map(pick)
  await sql`
    WITH outcome AS (
      UPDATE webhook_deliveries d
      SET status = o.status, last_attempt_at = o.at, next_attempt_at = o.next_attempt_at, leased_until = NULL, response_status = o.response_status, response_body = o.response_body
      FROM unnest(
        ${column((o) => o.id)}::text[], ${column((o) => o.status)}::text[], ${column((o) => o.at.toISOString())}::timestamptz[],
        ${column((o) => o.nextAttemptAt?.toISOString() ?? null)}::timestamptz[], ${column((o) => o.responseStatus)}::int[], ${column((o) => o.responseBody)}::text[]
      ) AS o (id, status, at, next_attempt_at, response_status, response_body)
      WHERE d.id = o.id
      RETURNING d.webhook_id, d.status
    )
    UPDATE webhooks SET failing_since = NULL
    WHERE id IN (SELECT webhook_id FROM outcome WHERE status = 'delivered') AND failing_since IS NOT NULL`.execute(db)
}

/** Sends a delivery again at once (same event, same `webhook-id`); false when there is no such delivery of the endpoint. */
export async function scheduleRetryNow(db: Db, webhookId: string, deliveryId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now })
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function listDeliveries(
  db: Db,
  input: { webhookId: string; page: number; limit: number; status?: WebhookDeliveryStatus | undefined },
): Promise<{ deliveries: WebhookDelivery[]; total: number }> {
  let query = db.selectFrom('webhook_deliveries as d').innerJoin('webhook_events as e', 'e.id', 'd.event_id').where('d.webhook_id', '=', input.webhookId)
  if (input.status) query = query.where('d.status', '=', input.status)
  const [rows, count] = await Promise.all([
    query
      .select([
        'd.id',
        'd.event_id',
        'e.type',
        'd.status',
        'd.attempts',
        'd.last_attempt_at',
        'd.next_attempt_at',
        'd.leased_until',
        'd.response_status',
        'd.response_body',
        'd.created_at',
      ])
      .orderBy('d.created_at', 'desc')
      .orderBy('d.id', 'desc')
      .limit(input.limit)
      .offset((input.page - 1) * input.limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return {
    total: Number(count.n),
    deliveries: rows.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      eventType: row.type,
      status: row.status,
      attempts: row.attempts,
      lastAttemptAt: row.last_attempt_at ? row.last_attempt_at.toISOString() : null,
      // Only for deliveries that wait: not for one being sent (leased) or done.
      nextAttemptAt: row.next_attempt_at && !row.leased_until && (row.status === 'pending' || row.status === 'failed') ? row.next_attempt_at.toISOString() : null,
      responseStatus: row.response_status,
      responseBody: row.response_body,
      createdAt: row.created_at.toISOString(),
    })),
  }
}

/** For the metrics: deliveries waiting (pending or failed, to be tried again) and the oldest one's creation. */
export async function queueDepth(db: Db): Promise<{ waiting: number; oldest: Date | null }> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('status', 'in', ['pending', 'failed'])
    .executeTakeFirstOrThrow()
  return { waiting: Number(row.n), oldest: row.oldest ? new Date(row.oldest as unknown as string) : null }
}
