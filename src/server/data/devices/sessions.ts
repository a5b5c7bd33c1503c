import { sql } from 'kysely'
import type { SignedInDevice } from '~shared/schemas/sessions'
import { describeUserAgent } from '~server/auth/user-agent'
import { runNamedStatement } from '~server/db/prepared'
import type { Db } from '~server/db/types'

/**
 * Sessions as the signed-in devices list shows them. A session is live while it is neither
 * revoked nor past its idle or absolute end; its last use is the later of its last signed-in call
 * (`last_used_at`, to the minute) and its last refresh (docs/decisions/0310).
 */

const lastUse = sql<Date>`GREATEST(last_used_at, last_refreshed_at)`

/**
 * A timestamp as the API writes it (ISO 8601 UTC, milliseconds), made by the database: turning
 * a hundred rows' timestamps into Dates costs the driver more than the query itself.
 */
const iso = (value: ReturnType<typeof sql>) => sql<string>`to_char(${value} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

const deviceColumns = ['id', 'ip_address', 'user_agent', iso(sql.ref('created_at')).as('created_at'), iso(lastUse).as('last_use')] as const

export interface DeviceRow {
  id: string
  ip_address: string | null
  user_agent: string | null
  created_at: string
  last_use: string
}

export function toSignedInDevice(row: DeviceRow, currentSessionId: string): SignedInDevice {
  const { browser, os } = describeUserAgent(row.user_agent)
  return {
    id: row.id,
    current: row.id === currentSessionId,
    browser,
    os,
    ipAddress: row.ip_address,
    createdAt: row.created_at,
    lastUsedAt: row.last_use,
  }
}

/**
 * The user's live sessions, most recently used first. A named statement (db/prepared.ts): one
 * account's rows by key, planned once per connection.
 */
export async function listLiveSessions(db: Db, userId: string, now: Date): Promise<DeviceRow[]> {
  const query = db
    .selectFrom('sessions')
    .select(deviceColumns)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('idle_expires_at', '>', now)
    .orderBy(lastUse, 'desc')
    .orderBy('created_at', 'desc')
  return (await runNamedStatement(db, query.compile())).rows
}

/**
 * Ends one live session of this user; the session as it was, or undefined when the user has no
 * such live session (another user's, an ended one, an unknown id: the caller cannot tell them apart).
 */
export function endLiveSession(trx: Db, input: { userId: string; sessionId: string; reason: string; now: Date }): Promise<DeviceRow | undefined> {
  const { now } = input
  return trx
    .updateTable('sessions')
    .set({ revoked_at: now, revoked_reason: input.reason })
    .where('id', '=', input.sessionId)
    .where('user_id', '=', input.userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('idle_expires_at', '>', now)
    .returning(deviceColumns)
    .executeTakeFirst()
}

/** Ends every live session of the user but one; how many ended. */
export async function endOtherLiveSessions(trx: Db, input: { userId: string; keepSessionId: string; reason: string; now: Date }): Promise<number> {
  const { now } = input
  const result = await trx
    .updateTable('sessions')
    .set({ revoked_at: now, revoked_reason: input.reason })
    .where('user_id', '=', input.userId)
    .where('id', '!=', input.keepSessionId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('idle_expires_at', '>', now)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * What the new-sign-in notice compares with (docs/decisions/0311): the distinct User-Agents of
 * the account's sessions used since the given moment, ended ones included. One query on
 * `sessions_user_id`. A sign-in makes the same read inside its session's start (`startSession`,
 * decision 0543); this one alone is what the devices benchmark times.
 */
export async function userAgentsUsedSince(db: Db, userId: string, since: Date): Promise<(string | null)[]> {
  const rows = await db.selectFrom('sessions').select('user_agent').distinct().where('user_id', '=', userId).where(lastUse, '>=', since).execute()
  return rows.map((row) => row.user_agent)
}
