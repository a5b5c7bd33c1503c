import type { CompiledQuery } from 'kysely'
import type { AppContext } from '~server/context'
import { isUuid, userColumns, type UserRecord } from '~server/data/users/users'
import { compiledOnce, runNamedStatement } from '~server/db/prepared'
import { forbidden, type HttpError, unauthorized } from '~server/http/errors'

/**
 * The check every signed-in call passes: the bearer access token is valid, its session is live
 * in the database and its account may be signed in. Checked against the database on every call,
 * so a sign-out, a revocation or a status change takes effect on the very next request. The
 * session's last use is written at most once a minute (docs/decisions/0310).
 */
export interface AuthState {
  user: UserRecord
  sessionId: string
}

/**
 * The session and its account, built and compiled once (src/server/db/prepared.ts), with the first
 * database given: the statement is the same for every one.
 */
let liveSessionUser: ((sessionId: string, userId: string, now: Date) => CompiledQuery<UserRecord & { session_last_used_at: Date | null }>) | undefined

/** How stale a session's recorded last use may grow before a signed-in call writes it again. */
export const LAST_USE_PRECISION_MS = 60_000

export async function checkSession(ctx: AppContext, authorization: string | undefined): Promise<AuthState> {
  const token = typeof authorization === 'string' && /^Bearer [^\s]+$/i.test(authorization) ? authorization.slice(7) : null
  if (!token) throw unauthorized('Authentication required', 'AUTH_REQUIRED')
  const claims = ctx.accessTokens.verify(token)
  if (!claims || !isUuid(claims.sessionId) || !isUuid(claims.userId)) {
    throw unauthorized('Invalid or expired access token', 'TOKEN_INVALID')
  }
  const db = ctx.db
  liveSessionUser ??= compiledOnce((sessionId: string, userId: string, now: Date) =>
    db
      .selectFrom('sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select(userColumns.map((column) => `u.${column}` as const))
      .select('s.last_used_at as session_last_used_at')
      .where('s.id', '=', sessionId)
      .where('s.user_id', '=', userId)
      .where('s.revoked_at', 'is', null)
      .where('s.expires_at', '>', now),
  )
  const row = (await runNamedStatement(ctx.db, liveSessionUser(claims.sessionId, claims.userId, ctx.clock()))).rows[0]
  if (!row) throw await endedSessionRefusal(ctx, claims)
  const { session_last_used_at: lastUsedAt, ...user } = row
  const refusal = accountRefusal(user)
  if (refusal) throw refusal
  const now = ctx.clock()
  if (!lastUsedAt || now.getTime() - lastUsedAt.getTime() >= LAST_USE_PRECISION_MS) {
    await ctx.db.updateTable('sessions').set({ last_used_at: now }).where('id', '=', claims.sessionId).execute()
  }
  return { user, sessionId: claims.sessionId }
}

/**
 * Why a session the token names is no longer live. A suspension or deactivation ends the
 * account's sessions; their bearer is told that this is why (still a 401: the session is over),
 * so the web app can show the account-status page rather than the sign-in form. The token is
 * ours and unexpired, so its bearer was signed in as this account moments ago: they learn
 * nothing that signing in with the right password would not tell them. Only the failure path
 * pays for this query.
 */
async function endedSessionRefusal(ctx: AppContext, claims: { sessionId: string; userId: string }): Promise<HttpError> {
  const owner = await ctx.db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select('u.status')
    .where('s.id', '=', claims.sessionId)
    .where('s.user_id', '=', claims.userId)
    .executeTakeFirst()
  if (owner?.status === 'SUSPENDED') return unauthorized('Account is suspended', 'ACCOUNT_SUSPENDED')
  if (owner?.status === 'INACTIVE') return unauthorized('Account is inactive', 'ACCOUNT_INACTIVE')
  return unauthorized('Your session has ended. Please sign in again.', 'SESSION_ENDED')
}

/** Why an account may not sign in or pass a signed-in call: only ACTIVE, verified accounts may. */
export function accountRefusal(user: Pick<UserRecord, 'status' | 'email_verified_at'>): HttpError | undefined {
  if (user.status === 'SUSPENDED') return forbidden('Account is suspended', 'ACCOUNT_SUSPENDED')
  if (user.status === 'INACTIVE') return forbidden('Account is inactive', 'ACCOUNT_INACTIVE')
  if (!user.email_verified_at) return forbidden('Email not verified', 'EMAIL_NOT_VERIFIED')
  return undefined
}
