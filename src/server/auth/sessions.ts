import { type Kysely, sql, type Transaction } from 'kysely'
import type { ActivityKind } from '~server/data/activities'
import { runNamedStatement } from '~server/db/prepared'
import type { Database } from '~server/db/types'
import { addSeconds } from '~server/clock'
import { generateToken, hashToken } from './secure-token'

/**
 * Sessions and their refresh tokens. A refresh token is used once: using it
 * marks it rotated and issues its successor. A rotated token presented again within the grace
 * period (parallel tabs refreshing together) gets a successor too; after that it is treated as
 * stolen and the whole session dies.
 */

export const REFRESH_REUSE_GRACE_SECONDS = 10

export interface SessionLifetimes {
  /** Idle life: a session unused for this long ends. */
  idleSeconds: number
  /** Absolute life: a session ends this long after sign-in, however active. */
  maxAgeSeconds: number
}

type Db = Kysely<Database> | Transaction<Database>

/**
 * Signs a user in: the new session, its first refresh token and the activity entry that records
 * the sign-in, committed together by one call of `start_session` (migration 0004).
 */
export async function startSession(
  db: Db,
  input: {
    userId: string
    ip: string | null
    userAgent: string | null
    now: Date
    lifetimes: SessionLifetimes
    entry: { kind: ActivityKind; activity: string }
  },
): Promise<{ sessionId: string; refreshToken: string }> {
  const { now, lifetimes } = input
  const refreshToken = generateToken()
  const { rows } = await runNamedStatement(
    db,
    sql<{ id: string }>`
      SELECT start_session(${input.userId}, ${input.ip}, ${input.userAgent?.slice(0, 500) ?? null}, ${now},
        ${addSeconds(now, lifetimes.idleSeconds)}, ${addSeconds(now, lifetimes.maxAgeSeconds)}, ${hashToken(refreshToken)},
        ${input.entry.kind}, ${input.entry.activity}) AS id`.compile(db),
  )
  return { sessionId: rows[0]!.id, refreshToken }
}

async function issueRefreshToken(trx: Db, sessionId: string, now: Date): Promise<string> {
  const token = generateToken()
  await trx.insertInto('refresh_tokens').values({ token_hash: hashToken(token), session_id: sessionId, created_at: now }).execute()
  return token
}

export type RotationResult =
  | { ok: true; sessionId: string; userId: string; refreshToken: string }
  | { ok: false; reason: 'unknown' | 'ended' }
  | { ok: false; reason: 'reused'; userId: string }

/**
 * The common case in one call: a token not yet used, of a live session, of an ACTIVE and
 * verified account, is marked rotated and its successor issued. Returns null when any of that
 * does not hold; `rotateRefreshToken` then works out why (and handles reuse) in a transaction.
 * Two requests with the same token serialise on its row: the second finds it rotated.
 */
export async function rotateFreshRefreshToken(
  db: Kysely<Database>,
  token: string,
  now: Date,
  lifetimes: SessionLifetimes,
): Promise<{ ok: true; sessionId: string; userId: string; refreshToken: string } | null> {
  const next = generateToken()
  const idleUntil = addSeconds(now, lifetimes.idleSeconds)
  // One call of the function from migration 0003, whose plans stay cached per connection.
  const { rows } = await runNamedStatement(
    db,
    sql<{ session_id: string; user_id: string }>`
      SELECT session_id, user_id FROM rotate_fresh_refresh_token(${hashToken(token)}, ${hashToken(next)}, ${now}, ${idleUntil})`.compile(db),
  )
  const row = rows[0]
  return row ? { ok: true, sessionId: row.session_id, userId: row.user_id, refreshToken: next } : null
}

/** Exchanges a refresh token for its successor, inside the caller's transaction. */
export async function rotateRefreshToken(
  trx: Transaction<Database>,
  token: string,
  now: Date,
  lifetimes: SessionLifetimes,
): Promise<RotationResult> {
  const found = await trx
    .selectFrom('refresh_tokens as t')
    .innerJoin('sessions as s', 's.id', 't.session_id')
    .select(['t.token_hash', 't.rotated_at', 's.id as session_id', 's.user_id', 's.revoked_at', 's.idle_expires_at', 's.expires_at'])
    .where('t.token_hash', '=', hashToken(token))
    .forUpdate()
    .executeTakeFirst()
  if (!found) return { ok: false, reason: 'unknown' }
  if (found.revoked_at || found.idle_expires_at <= now || found.expires_at <= now) return { ok: false, reason: 'ended' }

  if (found.rotated_at) {
    const sinceRotation = (now.getTime() - found.rotated_at.getTime()) / 1000
    if (sinceRotation > REFRESH_REUSE_GRACE_SECONDS) {
      await revokeSession(trx, found.session_id, 'refresh token reused', now)
      return { ok: false, reason: 'reused', userId: found.user_id }
    }
  } else {
    await trx.updateTable('refresh_tokens').set({ rotated_at: now }).where('token_hash', '=', found.token_hash).execute()
  }

  const idleUntil = addSeconds(now, lifetimes.idleSeconds)
  await trx
    .updateTable('sessions')
    .set({ last_refreshed_at: now, idle_expires_at: idleUntil < found.expires_at ? idleUntil : found.expires_at })
    .where('id', '=', found.session_id)
    .execute()
  const refreshToken = await issueRefreshToken(trx, found.session_id, now)
  return { ok: true, sessionId: found.session_id, userId: found.user_id, refreshToken }
}

export async function revokeSession(trx: Db, sessionId: string, reason: string, now: Date): Promise<void> {
  await trx
    .updateTable('sessions')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute()
}

/** Ends every live session of a user, except the one named (a password change keeps its own). */
export async function revokeUserSessions(
  trx: Db,
  userId: string,
  reason: string,
  now: Date,
  exceptSessionId?: string,
): Promise<void> {
  let query = trx
    .updateTable('sessions')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
  if (exceptSessionId) query = query.where('id', '!=', exceptSessionId)
  await query.execute()
}

/** Removes sessions that ended long ago, with their tokens; run from the housekeeping job. */
export async function deleteEndedSessions(db: Db, olderThan: Date): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('revoked_at', '<', olderThan), eb('idle_expires_at', '<', olderThan)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
