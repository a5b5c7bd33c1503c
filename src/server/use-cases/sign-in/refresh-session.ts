import type { FastifyBaseLogger } from 'fastify'
import type { Tokens } from '~shared/schemas/user'
import { rotateRefreshToken } from '~server/auth/sessions'
import type { AppContext } from '~server/context'
import { unauthorized } from '~server/http/errors'

/**
 * Exchanges a refresh token for a new set of tokens. The rotation and all of its rules are one
 * call of the database function `rotate_refresh_token` (`auth/sessions.ts`, decision 0302): a
 * token used again within its grace gets the session's current token again, one used after it
 * ends the whole session (with its activity entry, in the same transaction), and an account that
 * may no longer be signed in loses the session too.
 */
export async function refreshSession(
  ctx: AppContext,
  input: { refreshToken: string; ip: string },
  /** The request's logger, so a warning carries its request id. */
  log: FastifyBaseLogger = ctx.log,
): Promise<Tokens> {
  const { refreshToken, ip } = input
  const rotated = await rotateRefreshToken(ctx.db, ctx.refreshTokenSealer, { token: refreshToken, now: ctx.clock(), lifetimes: ctx.lifetimes, ip })
  if (!rotated.ok) {
    if (rotated.reason === 'reused') log.warn({ ip }, 'refresh token reused after its grace period: session revoked')
    throw unauthorized('Invalid or expired refresh token', 'REFRESH_INVALID')
  }
  // Two tabs, or a retry after a lost answer; a thief's replay looks the same (decision 0302).
  if (rotated.replayed) log.info({ ip }, 'refresh token replayed within its grace: the current token given again')
  const accessToken = ctx.accessTokens.sign({ userId: rotated.userId, sessionId: rotated.sessionId })
  return { accessToken, refreshToken: rotated.refreshToken, csrfToken: ctx.csrf.forSession(rotated.sessionId) }
}
