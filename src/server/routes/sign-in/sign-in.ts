import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { CSRF_HEADER } from '~shared/constants'
import { loginSchema } from '~shared/schemas/auth'
import { loginResultSchema, secondStepSchema } from '~shared/schemas/two-factor'
import { authResultSchema } from '~shared/schemas/user'
import type { AppContext } from '~server/context'
import { deviceCookie } from '~server/http/cookies'
import { envelope, failures, ok } from '~server/http/envelope'
import { requestLanguage } from '~server/http/request-language'
import { signIn } from '~server/use-cases/sign-in/sign-in'
import { signInSecondStep } from '~server/use-cases/sign-in/sign-in-second-step'

/** Sign-in with e-mail and password, and its second step for an account with two-factor on. */
export function signInRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/auth/login',
      { schema: { body: loginSchema, response: { 200: envelope(loginResultSchema), ...failures(400, 401, 403, 429, 503) } } },
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
        if ('mfaRequired' in result) return ok(result, 'Enter the code from your authenticator app')
        void reply.header(CSRF_HEADER, result.csrfToken)
        return ok(result, 'Login successful!')
      },
    )

    app.post(
      '/auth/login/mfa',
      { schema: { body: secondStepSchema, response: { 200: envelope(authResultSchema), ...failures(400, 401, 403, 429, 503) } } },
      async (request, reply) => {
        const { mfaToken, code, recoveryCode } = request.body
        const result = await signInSecondStep(ctx, {
          mfaToken,
          code,
          recoveryCode,
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
