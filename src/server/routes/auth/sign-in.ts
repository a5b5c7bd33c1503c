import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { CSRF_HEADER } from '~shared/constants'
import { loginSchema } from '~shared/schemas/auth'
import { authResultSchema } from '~shared/schemas/user'
import type { AppContext } from '~server/context'
import { deviceCookie } from '~server/http/cookies'
import { envelope, failures, ok } from '~server/http/envelope'
import { requestLanguage } from '~server/http/request-language'
import { signIn } from '~server/use-cases/sign-in'

/** Sign-in with e-mail and password. */
export function signInRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/auth/login',
      { schema: { body: loginSchema, response: { 200: envelope(authResultSchema), ...failures(400, 401, 403, 429, 503) } } },
      async (request, reply) => {
        const { email, password } = request.body
        const result = await signIn(ctx, {
          email,
          password,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
          deviceCookie: deviceCookie(request, reply),
          lang: requestLanguage(request),
        })
        void reply.header(CSRF_HEADER, result.csrfToken)
        return ok(result, 'Login successful!')
      },
    )
  }
}
