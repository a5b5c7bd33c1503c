import { type CompiledQuery, sql } from 'kysely'
import type { ActivityKind } from '~server/data/activity/activities'
import { type AdminUserRecord, adminUserColumns } from '~server/data/users/users'
import { prefixedColumns, unprefixed } from '~server/db/joined-columns'
import { compiledOnce, runNamedStatement } from '~server/db/prepared'
import type { Db } from '~server/db/types'
import { addSeconds } from '~server/clock'
import type { TokenSealer } from './sealed-token'
import { generateToken, hashToken } from './secure-token'

/**
 * Sessions and their refresh tokens (decisions 0002 and 0302). A refresh token
 * is used once: using it marks it rotated and issues its successor. The same token presented again
 * within the grace period (parallel tabs, or a retry after an answer was lost) gets the session's
 * current token again, never a new one; after the grace it is treated as stolen and the whole
 * session dies. The rules live in one place, the database function `rotate_refresh_token`
 * (migration 0007); `rotateRefreshToken` below is its only caller.
 */

export const REFRESH_REUSE_GRACE_SECONDS = 10

/**
 * How long an account's sessions, ended ones included, are remembered: a browser and system used
 * within it is not a new device to the new-sign-in notice (docs/decisions/0311).
 */
export const SEEN_DEVICES_SECONDS = 90 * 24 * 60 * 60

export interface SessionLifetimes {
  /** Idle life: a session unused for this long ends. */
  idleSeconds: number
  /** Absolute life: a session ends this long after sign-in, however active. */
  maxAgeSeconds: number
}

/**
 * Signs a user in: the new session (with how the account proved who it is), its first refresh
 * token and the activity entry that records the sign-in, committed together by one call of
 * `start_session` (migrations 0004 and 0029). With `seenSince`, the same statement reads what a
 * sign-in needs besides, as it was just before the session (a statement does not see what a
 * function it calls writes; decision 0543):
 * - the browsers of the account's sessions used since then, the new one left out: what the
 *   new-sign-in notice compares with;
 * - the account as an admin sees it, for the user.signed_in event: with the last sign-in the
 *   session's trigger (migration 0012) just wrote, so as it is after the change.
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
    /** How the account proved who it is (RFC 8176), when more than a password: for the ID tokens of apps (oidc/). */
    amr?: readonly string[]
    seenSince?: Date
  },
): Promise<{ sessionId: string; refreshToken: string; seenUserAgents: (string | null)[]; account: AdminUserRecord | undefined }> {
  const { now, lifetimes } = input
  const refreshToken = generateToken()
  const amr = input.amr && input.amr.join(' ') !== 'pwd' ? [...input.amr] : null
  const forSignIn = input.seenSince !== undefined
  const statement = forSignIn
    ? (signInStart ??= compiledOnce((...values: StartValues) => ({ compile: () => startStatement(values, true).compile(db) })))
    : (plainStart ??= compiledOnce((...values: StartValues) => ({ compile: () => startStatement(values, false).compile(db) })))
  const { rows } = await runNamedStatement(
    db,
    statement(
      input.userId,
      input.ip,
      input.userAgent?.slice(0, 500) ?? null,
      now,
      addSeconds(now, lifetimes.idleSeconds),
      addSeconds(now, lifetimes.maxAgeSeconds),
      hashToken(refreshToken),
      input.entry.kind,
      input.entry.activity,
      amr,
      ...(input.seenSince ? [input.seenSince] : []),
    ),
  )
  const row = rows[0]!
  return { sessionId: row.id, refreshToken, seenUserAgents: row.seen ?? [], account: forSignIn ? accountAfterSignIn(row, now) : undefined }
}

type StartValues = [
  userId: string,
  ip: string | null,
  userAgent: string | null,
  now: Date,
  idleUntil: Date,
  expires: Date,
  tokenHash: Buffer,
  kind: string,
  activity: string,
  amr: string[] | null,
  /** With the browsers seen only. */
  seenSince?: Date,
]
type StartRow = { id: string; seen: (string | null)[] | null } & Record<string, unknown>

/** The session start's two statements (alone, and with a sign-in's reads), each built and compiled once. */
let plainStart: ((...values: StartValues) => CompiledQuery<StartRow>) | undefined
let signInStart: ((...values: StartValues) => CompiledQuery<StartRow>) | undefined

function startStatement(values: StartValues, forSignIn: boolean) {
  const [userId, ip, userAgent, now, idleUntil, expires, tokenHash, kind, activity, amr, seenSince] = values
  const start = sql`start_session(${userId}, ${ip}, ${userAgent}, ${now}, ${idleUntil}, ${expires}, ${tokenHash}, ${kind}, ${activity}, ${amr}::text[]) AS id`
  if (!forSignIn) return sql<StartRow>`SELECT ${start}, NULL::text[] AS seen`
  return sql<StartRow>`
    SELECT ${start},
      ARRAY(SELECT DISTINCT user_agent FROM sessions WHERE user_id = ${userId} AND GREATEST(last_used_at, last_refreshed_at) >= ${seenSince}) AS seen,
      ${prefixedColumns('u', adminUserColumns, 'a')}
    FROM (VALUES (1)) AS one LEFT JOIN users u ON u.id = ${userId}`
}

/** The account a start read (see above), with the last sign-in the trigger set: now, unless a later one is recorded. */
function accountAfterSignIn(row: Record<string, unknown>, now: Date): AdminUserRecord | undefined {
  const account = unprefixed<AdminUserRecord>(row, adminUserColumns, 'a')
  if (account && (account.last_sign_in_at === null || account.last_sign_in_at < now)) account.last_sign_in_at = now
  return account
}

export type RotationResult =
  | { ok: true; sessionId: string; userId: string; refreshToken: string; replayed: boolean }
  | { ok: false; reason: 'unknown' | 'ended' | 'refused' | 'replay-unavailable' }
  | { ok: false; reason: 'reused'; userId: string }

/** The activity entry written, with the revocation, when a token comes back after the grace. */
export const REUSE_ENTRY = { kind: 'other', activity: 'Session ended: a used refresh token was presented again' } as const satisfies {
  kind: ActivityKind
  activity: string
}

type Outcome = 'rotated' | 'replayed' | 'reused' | 'unknown' | 'ended' | 'refused'

/**
 * Exchanges a refresh token for the session's next one: one call of `rotate_refresh_token`, one
 * round trip and one transaction whatever the case (a reuse's revocation and its activity entry
 * are committed together). The successor is made here and handed in twice: as its hash, and
 * sealed, so that a replay within the grace can be given the same token again.
 */
export async function rotateRefreshToken(
  db: Db,
  sealer: TokenSealer,
  input: { token: string; now: Date; lifetimes: SessionLifetimes; ip: string | null },
): Promise<RotationResult> {
  const { now } = input
  const next = generateToken()
  const graceFrom = addSeconds(now, -REFRESH_REUSE_GRACE_SECONDS)
  const { rows } = await runNamedStatement(
    db,
    sql<{ outcome: Outcome; session_id: string | null; user_id: string | null; sealed: Buffer | null }>`
      SELECT outcome, session_id, user_id, sealed FROM rotate_refresh_token(${hashToken(input.token)}, ${hashToken(next)},
        ${sealer.seal(next)}, ${now}, ${addSeconds(now, input.lifetimes.idleSeconds)}, ${graceFrom}, ${input.ip},
        ${REUSE_ENTRY.kind}, ${REUSE_ENTRY.activity})`.compile(db),
  )
  const row = rows[0]!
  switch (row.outcome) {
    case 'rotated':
      return { ok: true, sessionId: row.session_id!, userId: row.user_id!, refreshToken: next, replayed: false }
    case 'replayed': {
      // Sealed before this server had the key it has now (AUTH_SECRET changed), or rotated before
      // sealing existed: a 401 that leaves the session alive, the other answer decision 0302 allows.
      const current = row.sealed ? sealer.open(row.sealed) : null
      if (!current) return { ok: false, reason: 'replay-unavailable' }
      return { ok: true, sessionId: row.session_id!, userId: row.user_id!, refreshToken: current, replayed: true }
    }
    case 'reused':
      return { ok: false, reason: 'reused', userId: row.user_id! }
    default:
      return { ok: false, reason: row.outcome }
  }
}

export async function revokeSession(trx: Db, sessionId: string, reason: string, now: Date): Promise<void> {
  await trx.updateTable('sessions').set({ revoked_at: now, revoked_reason: reason }).where('id', '=', sessionId).where('revoked_at', 'is', null).execute()
}

/** Ends every live session of a user, except the one named (a password change keeps its own). */
export async function revokeUserSessions(trx: Db, userId: string, reason: string, now: Date, exceptSessionId?: string): Promise<void> {
  let query = trx.updateTable('sessions').set({ revoked_at: now, revoked_reason: reason }).where('user_id', '=', userId).where('revoked_at', 'is', null)
  if (exceptSessionId) query = query.where('id', '!=', exceptSessionId)
  await query.execute()
}

/**
 * Drops the sealed copies of current refresh tokens once no replay can need them (their session's
 * last rotation is past the grace); run from the housekeeping job.
 */
export async function forgetSealedRefreshTokens(db: Db, now: Date): Promise<number> {
  const result = await db
    .updateTable('sessions')
    .set({ refresh_token_sealed: null })
    .where('refresh_token_sealed', 'is not', null)
    .where('last_refreshed_at', '<', addSeconds(now, -REFRESH_REUSE_GRACE_SECONDS))
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Removes sessions that ended long ago, with their tokens; run from the housekeeping job. */
export async function deleteEndedSessions(db: Db, olderThan: Date): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('revoked_at', '<', olderThan), eb('idle_expires_at', '<', olderThan)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/**
 * Removes the refresh tokens of sessions that ended long ago while the session rows stay (the
 * new-sign-in notice remembers the devices of the last 90 days by them); run from housekeeping.
 */
export async function deleteEndedSessionTokens(db: Db, olderThan: Date): Promise<number> {
  const result = await db
    .deleteFrom('refresh_tokens')
    .where('session_id', 'in', (eb) =>
      eb
        .selectFrom('sessions')
        .select('id')
        .where((s) => s.or([s('expires_at', '<', olderThan), s('revoked_at', '<', olderThan), s('idle_expires_at', '<', olderThan)])),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
