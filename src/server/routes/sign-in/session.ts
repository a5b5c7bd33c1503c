import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { CSRF_HEADER } from '~shared/constants'
import { refreshTokenSchema } from '~shared/schemas/auth'
import { tokensSchema, userSchema } from '~shared/schemas/user'
import type { AppContext } from '~server/context'
import { toUser } from '~server/data/users/users'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { refreshSession } from '~server/use-cases/sign-in/refresh-session'
import { signOut, signOutEverywhere } from '~server/use-cases/sign-in/sign-out'

/** The signed-in session: the current user, token refresh, the CSRF token, and signing out. */
export function sessionRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/auth/me', { schema: { response: { 200: envelope(userSchema), ...failures(401, 403, 503) } } }, async (request) => ok(toUser(requireAuth(request).user)))

    app.post(
      '/auth/refresh-token',
      { schema: { body: refreshTokenSchema, response: { 200: envelope(tokensSchema), ...failures(400, 401, 503) } } },
      async (request, reply) => {
        const tokens = await refreshSession(ctx, { refreshToken: request.body.refreshToken, ip: request.ip }, request.log)
        void reply.header(CSRF_HEADER, tokens.csrfToken)
        return ok(tokens)
      },
    )

    app.get('/auth/csrf-token', { schema: { response: { 200: envelope(z.object({ csrfToken: z.string() })), ...failures(401, 403, 503) } } }, async (request, reply) => {
      const csrfToken = ctx.csrf.forSession(requireAuth(request).sessionId)
      void reply.header(CSRF_HEADER, csrfToken)
      return ok({ csrfToken })
    })

    app.post('/auth/logout', { schema: { response: { 200: messageOnly, ...failures(401, 403, 503) } } }, async (request) => {
      await signOut(ctx, { ...requireAuth(request), ip: request.ip })
      return done('Logged out successfully')
    })

    app.post('/auth/logout-all', { schema: { response: { 200: messageOnly, ...failures(401, 403, 503) } } }, async (request) => {
      await signOutEverywhere(ctx, { ...requireAuth(request), ip: request.ip })
      return done('Logged out of all sessions')
    })
  }
}
