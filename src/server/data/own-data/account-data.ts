import { sql } from 'kysely'
import type { ExportedActivity, ExportedSession, ExportedTwoFactor } from '~shared/schemas/own-data'
import { describeUserAgent } from '~server/auth/user-agent'
import type { Db } from '~server/db/types'

/**
 * The rows of a person's own data, for the export (contract section 15). Each query names its
 * columns: no hash, token, sealed secret, key or credential id is ever selected. The two parts
 * that grow without bound, the activity entries and the sessions, are read a batch at a time by
 * keyset (newest first, each batch the next EXPORT_BATCH after the last row handed on), on
 * PostgreSQL and PGlite alike, so that memory holds one batch whatever the account's history
 * (docs/decisions/0560).
 */
export const EXPORT_BATCH = 1_000

/**
 * A batch's last row's key, sent back as text so that timestamps compare to the microsecond. The
 * statements order by the table's columns (`a.id`), never by the output's text `id`.
 */
interface Keyed {
  sort_key: string
  id: string
}

async function* inBatches<R extends Keyed>(read: (after: Keyed | undefined) => Promise<R[]>): AsyncGenerator<R[]> {
  let after: Keyed | undefined
  for (;;) {
    const rows = await read(after)
    if (rows.length > 0) yield rows
    if (rows.length < EXPORT_BATCH) return
    const last = rows[rows.length - 1]!
    after = { sort_key: last.sort_key, id: last.id }
  }
}

interface ActivityRow extends Keyed {
  created_at: Date
  activity: string
  details: string | null
  ip_address: string | null
  actor_id: string | null
  user_id: string | null
  actor_name: string | null
  changes: unknown
}

function toExportedActivity(row: ActivityRow): ExportedActivity {
  const byOther = row.actor_name !== null && row.actor_id !== row.user_id
  const changes = typeof row.changes === 'string' ? (JSON.parse(row.changes) as unknown) : row.changes
  return {
    id: row.id,
    createdAt: row.created_at.toISOString(),
    activity: row.activity,
    details: row.details,
    ipAddress: row.ip_address,
    actor: byOther ? { id: row.actor_id, name: row.actor_name! } : null,
    changes: Array.isArray(changes) && changes.length > 0 ? (changes as ExportedActivity['changes']) : null,
  }
}

/** The entries about the account, newest first, a batch at a time. */
export async function* activityBatches(db: Db, userId: string): AsyncGenerator<ExportedActivity[]> {
  const read = async (after: Keyed | undefined) => {
    const beyond = after ? sql`AND (a.created_at, a.id) < (${after.sort_key}::timestamptz, ${after.id}::bigint)` : sql``
    const { rows } = await sql<ActivityRow>`
      SELECT a.id::text AS id, a.created_at, a.created_at::text AS sort_key, a.activity, a.details, a.ip_address, a.actor_id, a.user_id, a.actor_name, a.changes
      FROM activities a WHERE a.user_id = ${userId} ${beyond}
      ORDER BY a.created_at DESC, a.id DESC LIMIT ${EXPORT_BATCH}`.execute(db)
    return rows
  }
  for await (const rows of inBatches(read)) yield rows.map(toExportedActivity)
}

interface SessionRow extends Keyed {
  user_agent: string | null
  ip_address: string | null
  amr: string[] | null
  created_at: Date
  last_used: Date
  expires_at: Date
  revoked_at: Date | null
  revoked_reason: string | null
}

/** Every session the account still has on record (live ones, and ended ones kept for 90 days), newest first. */
export async function* sessionBatches(db: Db, userId: string, currentSessionId: string): AsyncGenerator<ExportedSession[]> {
  const read = async (after: Keyed | undefined) => {
    const beyond = after ? sql`AND (s.created_at, s.id) < (${after.sort_key}::timestamptz, ${after.id}::uuid)` : sql``
    const { rows } = await sql<SessionRow>`
      SELECT s.id::text AS id, s.created_at::text AS sort_key, s.user_agent, s.ip_address, s.amr, s.created_at,
        GREATEST(s.last_used_at, s.last_refreshed_at) AS last_used, LEAST(s.expires_at, s.idle_expires_at) AS expires_at, s.revoked_at, s.revoked_reason
      FROM sessions s WHERE s.user_id = ${userId} ${beyond}
      ORDER BY s.created_at DESC, s.id DESC LIMIT ${EXPORT_BATCH}`.execute(db)
    return rows
  }
  for await (const rows of inBatches(read)) {
    yield rows.map((row) => {
      const { browser, os } = describeUserAgent(row.user_agent)
      return {
        id: row.id,
        current: row.id === currentSessionId,
        browser,
        os,
        userAgent: row.user_agent,
        ipAddress: row.ip_address,
        // A session signed in with a password alone has no list of its own (migration 0014).
        signedInWith: row.amr ?? ['pwd'],
        createdAt: row.created_at.toISOString(),
        lastUsedAt: row.last_used.toISOString(),
        expiresAt: row.expires_at.toISOString(),
        endedAt: row.revoked_at ? row.revoked_at.toISOString() : null,
        endedReason: row.revoked_reason,
      }
    })
  }
}

/** Whether the authenticator app is on, since when, and how many recovery codes are left (never the secret or the codes). */
export async function twoFactorState(db: Db, userId: string): Promise<ExportedTwoFactor> {
  const row = await db
    .selectFrom('users as u')
    .leftJoin('totp_credentials as t', 't.user_id', 'u.id')
    .select([
      't.enabled_at',
      (eb) =>
        eb
          .selectFrom('recovery_codes as r')
          .select((r) => r.fn.countAll<string>().as('n'))
          .where('r.user_id', '=', userId)
          .where('r.used_at', 'is', null)
          .as('codes_left'),
    ])
    .where('u.id', '=', userId)
    .executeTakeFirst()
  const enabledAt = row?.enabled_at ?? null
  return { totp: enabledAt !== null, enabledAt: enabledAt ? enabledAt.toISOString() : null, recoveryCodesLeft: Number(row?.codes_left ?? 0) }
}
