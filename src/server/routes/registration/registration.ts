import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { registerSchema, resendVerificationSchema, tokenParamsSchema } from '~shared/schemas/auth'
import type { AppContext } from '~server/context'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { requestLanguage } from '~server/http/request-language'
import { register } from '~server/use-cases/registration/register'
import { requestVerificationLink } from '~server/use-cases/registration/request-account-link'
import { verifyEmail } from '~server/use-cases/registration/verify-email'

/** Registration, e-mail verification and resending the verification e-mail. */
export function registrationRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/auth/register',
      { schema: { body: registerSchema, response: { 201: envelope(z.object({ email: z.string() })), ...failures(400, 429, 503) } } },
      async (request, reply) => {
        const { name, email, phone, password } = request.body
        await register(ctx, { name, email, phone, password, ip: request.ip, lang: requestLanguage(request) })
        void reply.code(201)
        return ok({ email }, 'Registration successful! Please check your email to verify your account.')
      },
    )

    app.get('/auth/verify-email/:token', { schema: { params: tokenParamsSchema, response: { 200: messageOnly, ...failures(400, 429, 503) } } }, async (request) => {
      await verifyEmail(ctx, { token: request.params.token, ip: request.ip })
      return done('Email verified successfully!')
    })

    app.post('/auth/resend-verification', { schema: { body: resendVerificationSchema, response: { 200: messageOnly, ...failures(400, 429, 503) } } }, async (request) => {
      await requestVerificationLink(ctx, { email: request.body.email, ip: request.ip, lang: requestLanguage(request) })
      return done('If this address is waiting for verification, a new verification email is on its way.')
    })
  }
}
