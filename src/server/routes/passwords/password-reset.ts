import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { emailOnlySchema, resetPasswordSchema, tokenParamsSchema } from '~shared/schemas/auth'
import type { AppContext } from '~server/context'
import { deviceCookie } from '~server/http/cookies'
import { done, failures, messageOnly } from '~server/http/envelope'
import { requestLanguage } from '~server/http/request-language'
import { requestPasswordReset } from '~server/use-cases/registration/request-account-link'
import { resetPassword } from '~server/use-cases/passwords/reset-password'

/** Forgotten password: the request for a link, and the reset through it. */
export function passwordResetRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/auth/forgot-password', { schema: { body: emailOnlySchema, response: { 200: messageOnly, ...failures(400, 429, 503) } } }, async (request) => {
      await requestPasswordReset(ctx, { email: request.body.email, ip: request.ip, lang: requestLanguage(request) })
      return done('If an account exists for this address, a password reset link has been sent.')
    })

    app.post(
      '/auth/reset-password/:token',
      { schema: { params: tokenParamsSchema, body: resetPasswordSchema, response: { 200: messageOnly, ...failures(400, 429, 503) } } },
      async (request, reply) => {
        await resetPassword(ctx, {
          token: request.params.token,
          password: request.body.password,
          ip: request.ip,
          lang: requestLanguage(request),
          deviceCookie: deviceCookie(request, reply),
        })
        return done('Password reset successfully!')
      },
    )
  }
}
