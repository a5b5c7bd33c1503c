import { sql } from 'kysely'
import { leaseDueDeliveries, recordAttempts } from '~server/data/webhooks/deliveries'
import { insertEvent } from '~server/data/webhooks/events'
import { openDatabase } from '~server/db/database'
import { dropDatabase, processCpuMs, recreateDatabase } from './server'

/**
 * The database's share of webhook deliveries, alone (decision 0564): on a database of its own with
 * ten endpoints, one connection writes an event (with its ten deliveries, as a change does), leases
 * the ten and writes their outcomes, the sender's three statements, again and again. Measured: the
 * CPU of that connection's PostgreSQL backend (from /proc, so the database must run on this
 * machine) for each of the three, and the WAL written, per event.
 */
export interface WebhookStatementCosts {
  events: number
  insertMs: number
  leaseMs: number
  outcomesMs: number
  walBytes: number
  /** Of the deliveries' updates, how many PostgreSQL made in place (HOT). */
  hotShare: number
}

const DATABASE = 'accounts_bench_webhook_statements'
const ENDPOINTS = 10
const WARM_UP = 300

export async function measureWebhookStatements(events = 2_000): Promise<WebhookStatementCosts> {
  const url = await recreateDatabase(DATABASE)
  const handle = await openDatabase({ url, poolSize: 1 })
  const { db } = handle
  try {
    for (let n = 0; n < ENDPOINTS; n++) {
      await sql`INSERT INTO webhooks (id, url, events, secret, created_at, updated_at) VALUES (${`wh_bench_${n}`}, 'http://127.0.0.1:9/', '{*}', '\\x00', now(), now())`.execute(
        db,
      )
    }
    const { pid } = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!
    const backendMs = () => processCpuMs(pid)
    const wal = async () => Number((await sql<{ b: string }>`SELECT pg_current_wal_lsn() - '0/0'::pg_lsn AS b`.execute(db)).rows[0]!.b)
    const parts = { insert: 0, lease: 0, outcomes: 0 }
    const cycle = async (n: number) => {
      const now = new Date()
      let before = backendMs()
      const took = (part: keyof typeof parts) => {
        const after = backendMs()
        parts[part] += after - before
        before = after
      }
      await db.transaction().execute((trx) => insertEvent(trx, { type: 'user.signed_in', data: { user: { id: `bench${n}`, name: 'Bench Person' } }, at: now }))
      took('insert')
      const leased = await leaseDueDeliveries(db, { now, leaseUntil: new Date(now.getTime() + 60_000), limit: 128, perEndpoint: 4, room: new Map() })
      took('lease')
      await recordAttempts(
        db,
        leased.map((delivery) => ({ id: delivery.id, status: 'delivered' as const, at: now, nextAttemptAt: null, responseStatus: 204, responseBody: '' })),
      )
      took('outcomes')
    }
    for (let n = 0; n < WARM_UP; n++) await cycle(n)
    Object.assign(parts, { insert: 0, lease: 0, outcomes: 0 })
    const walBefore = await wal()
    for (let n = 0; n < events; n++) await cycle(WARM_UP + n)
    const walBytes = ((await wal()) - walBefore) / events
    const updates = (
      await sql<{ upd: string; hot: string }>`SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'`.execute(db)
    ).rows[0]!
    return {
      events,
      insertMs: parts.insert / events,
      leaseMs: parts.lease / events,
      outcomesMs: parts.outcomes / events,
      walBytes,
      hotShare: Number(updates.hot) / Math.max(1, Number(updates.upd)),
    }
  } finally {
    await handle.close()
    await dropDatabase(DATABASE)
  }
}
