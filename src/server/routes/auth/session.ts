import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { CSRF_HEADER } from '../../../shared/constants'
import { loginSchema, refreshTokenSchema } from '../../../shared/schemas/auth'
import { authResultSchema, tokensSchema, userSchema } from '../../../shared/schemas/user'
import { accountRefusal, requireAuth } from '../../http/auth-guard'
import { revokeSession, revokeUserSessions, rotateRefreshToken, startSession } from '../../auth/sessions'
import type { AppContext } from '../../context'
import { commitChange } from '../../data/change'
import { findCredentialsByEmail, toUser } from '../../data/users'
import { done, envelope, failures, messageOnly, ok } from '../../http/envelope'
import { unauthorized } from '../../http/errors'
import { RULES } from '../../rate-limit/rules'

/** Sign-in, the current user, token refresh, sign-out and the CSRF token (spec section 7). */
export function sessionRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/auth/login',
      {
        schema: {
          body: loginSchema,
          response: { 200: envelope(authResultSchema), ...failures(400, 401, 403, 429, 503) },
        },
      },
      async (request, reply) => {
        const { email, password } = request.body
        const ip = request.ip
        const found = await findCredentialsByEmail(ctx.db, email)
        // Counted before the password is checked, so parallel guesses cannot slip past the limit:
        // against the browser's device cookie when it holds a genuine one for this account, else
        // against the client address and the account (decision 0301).
        const device = found ? ctx.deviceTokens.recognise(request, found.id, ctx.clock()) : null
        if (device) {
          await ctx.limiter.consume(RULES.loginDevice, device)
        } else {
          await ctx.limiter.consume(RULES.loginAddress, ip)
          await ctx.limiter.consume(RULES.loginAccount, email)
        }

        // An unknown address costs the same hashing time as a wrong password.
        const valid = found ? await ctx.hasher.verify(found.password_hash, password) : await ctx.hasher.verifyNothing(password)
        if (!found || !valid) {
          // Recorded for an unknown address too, as nobody's: the same write either way, so the
          // answer takes the same time (docs/benchmarks/enumeration.md), and staff see the attempts.
          await commitChange(ctx, (c) =>
            c.record(
              found
                ? { userId: found.id, kind: 'other', activity: 'Failed login', details: 'Wrong password', ip }
                : { userId: null, kind: 'other', activity: 'Failed login', details: 'Unknown address', ip },
            ),
          )
          throw unauthorized('Invalid credentials', 'INVALID_CREDENTIALS')
        }
        // The owner's password: the failures counted where this attempt was counted stop counting
        // (a sign-in from a known browser leaves the account's count to whoever made it), and this
        // browser is remembered for the account's next sign-ins.
        if (device) {
          await ctx.limiter.reset(RULES.loginDevice, device)
        } else {
          await ctx.limiter.reset(RULES.loginAccount, email)
          await ctx.limiter.undo(RULES.loginAddress, ip)
        }
        ctx.deviceTokens.remember(request, reply, found.id, ctx.clock())
        // The account's state is told only to someone who knows its password, and the refusal
        // is recorded like any other failed sign-in, with the reason.
        const refusal = accountRefusal(found)
        if (refusal) {
          await commitChange(ctx, (c) => c.record({ userId: found.id, kind: 'other', activity: 'Failed login', details: refusal.message, ip }))
          throw refusal
        }

        const { sessionId, refreshToken } = await startSession(ctx.db, {
          userId: found.id,
          ip,
          userAgent: request.headers['user-agent'] ?? null,
          now: ctx.clock(),
          lifetimes: ctx.lifetimes,
          entry: { kind: 'logged in', activity: 'Logged in' },
        })
        const accessToken = await ctx.accessTokens.sign({ userId: found.id, sessionId })
        const csrfToken = ctx.csrf.forSession(sessionId)
        void reply.header(CSRF_HEADER, csrfToken)
        return ok({ accessToken, refreshToken, csrfToken, user: toUser(found) }, 'Login successful!')
      },
    )

    app.get(
      '/auth/me',
      { schema: { response: { 200: envelope(userSchema), ...failures(401, 403, 503) } } },
      async (request) => ok(toUser(requireAuth(request).user)),
    )

    app.post(
      '/auth/refresh-token',
      {
        schema: {
          body: refreshTokenSchema,
          response: { 200: envelope(tokensSchema), ...failures(400, 401, 503) },
        },
      },
      async (request, reply) => {
        const rotated = await rotateRefreshToken(ctx.db, ctx.refreshTokenSealer, {
          token: request.body.refreshToken,
          now: ctx.clock(),
          lifetimes: ctx.lifetimes,
          ip: request.ip,
        })
        if (!rotated.ok) {
          if (rotated.reason === 'reused') {
            request.log.warn({ ip: request.ip }, 'refresh token reused after its grace period: session revoked')
          }
          throw unauthorized('Invalid or expired refresh token', 'REFRESH_INVALID')
        }
        // Two tabs, or a retry after a lost answer; a thief's replay looks the same (decision 0302).
        if (rotated.replayed) request.log.info({ ip: request.ip }, 'refresh token replayed within its grace: the current token given again')
        const accessToken = await ctx.accessTokens.sign({ userId: rotated.userId, sessionId: rotated.sessionId })
        const csrfToken = ctx.csrf.forSession(rotated.sessionId)
        void reply.header(CSRF_HEADER, csrfToken)
        return ok({ accessToken, refreshToken: rotated.refreshToken, csrfToken })
      },
    )

    app.post(
      '/auth/logout',
      { schema: { response: { 200: messageOnly, ...failures(401, 403, 503) } } },
      async (request) => {
        const { user, sessionId } = requireAuth(request)
        await commitChange(ctx, async (c) => {
          await revokeSession(c.trx, sessionId, 'logout', c.now)
          await c.record({ userId: user.id, kind: 'logged out', activity: 'Logged out', ip: request.ip })
        })
        return done('Logged out successfully')
      },
    )

    app.post(
      '/auth/logout-all',
      { schema: { response: { 200: messageOnly, ...failures(401, 403, 503) } } },
      async (request) => {
        const { user } = requireAuth(request)
        await commitChange(ctx, async (c) => {
          await revokeUserSessions(c.trx, user.id, 'logout everywhere', c.now)
          await c.record({ userId: user.id, kind: 'logged out', activity: 'Logged out of all sessions', ip: request.ip })
        })
        return done('Logged out of all sessions')
      },
    )

    app.get(
      '/auth/csrf-token',
      { schema: { response: { 200: envelope(z.object({ csrfToken: z.string() })), ...failures(401, 403, 503) } } },
      async (request, reply) => {
        const csrfToken = ctx.csrf.forSession(requireAuth(request).sessionId)
        void reply.header(CSRF_HEADER, csrfToken)
        return ok({ csrfToken })
      },
    )
  }
}
