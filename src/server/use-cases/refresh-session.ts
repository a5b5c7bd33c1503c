import type { FastifyBaseLogger } from 'fastify'
import type { Tokens } from '~shared/schemas/user'
import { revokeSession, rotateFreshRefreshToken, rotateRefreshToken } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { findUserById } from '~server/data/users'
import { unauthorized } from '~server/http/errors'

/**
 * Exchanges a refresh token for a new set of tokens (the rotation itself: `auth/sessions.ts`).
 * The common case takes one database call; anything else is worked out in a transaction: a token
 * used again after its grace period ends the whole session, and an account that may no longer be
 * signed in loses the session too.
 */
export async function refreshSession(
  ctx: AppContext,
  input: { refreshToken: string; ip: string },
  /** The request's logger, so a warning carries its request id. */
  log: FastifyBaseLogger = ctx.log,
): Promise<Tokens> {
  const { refreshToken, ip } = input
  const rotated =
    (await rotateFreshRefreshToken(ctx.db, refreshToken, ctx.clock(), ctx.lifetimes)) ??
    (await commitChange(ctx, async (c) => {
      const result = await rotateRefreshToken(c.trx, refreshToken, c.now, ctx.lifetimes)
      if (!result.ok) {
        if (result.reason === 'reused') {
          await c.record({ userId: result.userId, kind: 'other', activity: 'Session ended: a used refresh token was presented again', ip })
        }
        return result
      }
      const user = await findUserById(c.trx, result.userId)
      if (!user || user.status !== 'ACTIVE' || !user.email_verified_at) {
        await revokeSession(c.trx, result.sessionId, 'account not usable', c.now)
        return { ok: false as const, reason: 'ended' as const }
      }
      return result
    }))
  if (!rotated.ok) {
    if (rotated.reason === 'reused') log.warn({ ip }, 'refresh token reused after its grace period: session revoked')
    throw unauthorized('Invalid or expired refresh token', 'REFRESH_INVALID')
  }
  const accessToken = ctx.accessTokens.sign({ userId: rotated.userId, sessionId: rotated.sessionId })
  return { accessToken, refreshToken: rotated.refreshToken, csrfToken: ctx.csrf.forSession(rotated.sessionId) }
}
