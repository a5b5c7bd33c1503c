import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { registerSchema, resendVerificationSchema } from '~shared/schemas/auth'
import { consumeOneTimeToken, issueOneTimeToken, isTokenShaped, tokenParams } from '~server/auth/one-time-tokens'
import type { AppContext } from '~server/context'
import { commitChange } from '~server/change'
import { findUserByEmail } from '~server/data/users'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { badRequest } from '~server/http/errors'
import { pageLinks } from '~shared/paths'
import { RULES } from '~server/rate-limit/rules'

/** Registration, e-mail verification and resending the verification e-mail. */

export function registrationRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const links = pageLinks(ctx.config.appUrl)
  return async (app) => {
    app.post(
      '/auth/register',
      {
        schema: {
          body: registerSchema,
          response: { 201: envelope(z.object({ email: z.string() })), ...failures(400, 429, 503) },
        },
      },
      async (request, reply) => {
        const { name, email, phone, password } = request.body
        const ip = request.ip
        await ctx.limiter.consume(RULES.registerAddress, ip)
        await ctx.limiter.consume(RULES.registerAccount, email)
        // Hashed whether or not the address is taken: both answers take the same time.
        const passwordHash = await ctx.hasher.hash(password)
        await commitChange(ctx, async (c) => {
          const created = await c.trx
            .insertInto('users')
            .values({ name, email, phone: phone ?? null, password_hash: passwordHash, created_at: c.now, updated_at: c.now })
            .onConflict((conflict) => conflict.column('email').doNothing())
            .returning('id')
            .executeTakeFirst()
          if (created) {
            const token = await issueOneTimeToken(c.trx, created.id, 'verify-email', c.now)
            await c.record({ userId: created.id, kind: 'registered', activity: 'Registered', ip })
            await c.mail({ template: 'verify-email', to: email, name, link: links.verifyEmail(token, email) })
            return
          }
          // Already registered: same answer to the caller, a warning to the address's owner.
          const owner = await findUserByEmail(c.trx, email)
          if (owner) {
            await c.record({ userId: owner.id, kind: 'other', activity: 'Registration attempted with this address', ip })
            await c.mail({
              template: 'already-registered',
              to: owner.email,
              name: owner.name,
              loginLink: links.login(),
              resetLink: links.forgotPassword(),
            })
          }
        })
        void reply.code(201)
        return ok({ email }, 'Registration successful! Please check your email to verify your account.')
      },
    )

    app.get(
      '/auth/verify-email/:token',
      { schema: { params: tokenParams, response: { 200: messageOnly, ...failures(400, 429, 503) } } },
      async (request) => {
        await ctx.limiter.consume(RULES.verifyAddress, request.ip)
        const { token } = request.params
        const verified =
          isTokenShaped(token) &&
          (await commitChange(ctx, async (c) => {
            const userId = await consumeOneTimeToken(c.trx, token, 'verify-email', c.now)
            if (!userId) return false
            await c.trx
              .updateTable('users')
              .set({ email_verified_at: c.now, updated_at: c.now })
              .where('id', '=', userId)
              .where('email_verified_at', 'is', null)
              .execute()
            await c.record({ userId, kind: 'verified', activity: 'Verified email', ip: request.ip })
            return true
          }))
        if (!verified) throw badRequest('Invalid or expired verification link', 'INVALID_TOKEN')
        return done('Email verified successfully!')
      },
    )

    app.post(
      '/auth/resend-verification',
      { schema: { body: resendVerificationSchema, response: { 200: messageOnly, ...failures(400, 429, 503) } } },
      async (request) => {
        const { email } = request.body
        await ctx.limiter.consume(RULES.resendAddress, request.ip)
        await ctx.limiter.consume(RULES.resendAccount, email)
        // The same for every address; the worker finds out whether it is waiting for verification.
        await commitChange(ctx, (c) => c.defer({ request: 'verification-link', email, ip: request.ip }))
        return done('If this address is waiting for verification, a new verification email is on its way.')
      },
    )
  }
}
