import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { CSRF_HEADER } from '~shared/constants'
import { acceptInvitationSchema, tokenParamsSchema } from '~shared/schemas/auth'
import { authResultSchema } from '~shared/schemas/user'
import type { AppContext } from '~server/context'
import { deviceCookie } from '~server/http/cookies'
import { envelope, failures, ok } from '~server/http/envelope'
import { acceptInvitation } from '~server/use-cases/invitations/accept-invitation'

/** Accepting an admin's invitation: the person chooses a password and is signed in. */
export function invitationRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/auth/accept-invite/:token',
      { schema: { params: tokenParamsSchema, body: acceptInvitationSchema, response: { 200: envelope(authResultSchema), ...failures(400, 403, 429, 503) } } },
      async (request, reply) => {
        const result = await acceptInvitation(ctx, {
          token: request.params.token,
          password: request.body.password,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
          deviceCookie: deviceCookie(request, reply),
        })
        void reply.header(CSRF_HEADER, result.csrfToken)
        return ok(result, 'Welcome! Your account is ready.')
      },
    )
  }
}
