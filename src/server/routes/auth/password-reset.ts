import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { passwordPolicyProblem } from '../../../shared/password-policy'
import { emailOnlySchema, resetPasswordSchema } from '../../../shared/schemas/auth'
import { consumeOneTimeToken, findOneTimeToken, isTokenShaped, tokenParams } from '../../auth/one-time-tokens'
import { revokeUserSessions } from '../../auth/sessions'
import type { AppContext } from '../../context'
import { commitChange } from '../../data/change'
import { findUserById } from '../../data/users'
import { done, failures, messageOnly } from '../../http/envelope'
import { badRequest, fieldErrors } from '../../http/errors'
import { mailLinks } from '../../mail/links'
import { RULES } from '../../rate-limit/rules'

/** Forgotten password: the request for a link, and the reset through it. */
export function passwordResetRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const links = mailLinks(ctx.config.appUrl)
  const invalidLink = () => badRequest('Invalid or expired reset link', 'INVALID_TOKEN')

  return async (app) => {
    app.post(
      '/auth/forgot-password',
      { schema: { body: emailOnlySchema, response: { 200: messageOnly, ...failures(400, 429, 503) } } },
      async (request) => {
        const { email } = request.body
        await ctx.limiter.consume(RULES.forgotAddress, request.ip)
        await ctx.limiter.consume(RULES.forgotAccount, email)
        // The same for every address; the worker finds out whether it has an account.
        await commitChange(ctx, (c) => c.defer({ request: 'reset-link', email, ip: request.ip }))
        return done('If an account exists for this address, a password reset link has been sent.')
      },
    )

    app.post(
      '/auth/reset-password/:token',
      {
        schema: {
          params: tokenParams,
          body: resetPasswordSchema,
          response: { 200: messageOnly, ...failures(400, 429, 503) },
        },
      },
      async (request, reply) => {
        await ctx.limiter.consume(RULES.resetAddress, request.ip)
        const { token } = request.params
        if (!isTokenShaped(token)) throw invalidLink()
        const userId = await findOneTimeToken(ctx.db, token, 'reset-password', ctx.clock())
        const user = userId ? await findUserById(ctx.db, userId) : undefined
        if (!user) throw invalidLink()
        const problem = passwordPolicyProblem(request.body.password, user.email)
        if (problem) throw fieldErrors([{ field: 'password', message: problem }])

        const passwordHash = await ctx.hasher.hash(request.body.password)
        const reset = await commitChange(ctx, async (c) => {
          // Used up here, in the same transaction as the change: a link works exactly once.
          if ((await consumeOneTimeToken(c.trx, token, 'reset-password', c.now)) !== user.id) return false
          await c.trx
            .updateTable('users')
            .set((eb) => ({
              password_hash: passwordHash,
              updated_at: c.now,
              // Following the e-mailed link proves the address is the user's.
              email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(c.now)),
            }))
            .where('id', '=', user.id)
            .execute()
          await revokeUserSessions(c.trx, user.id, 'password reset', c.now)
          await c.record({ userId: user.id, kind: 'reset', activity: 'Reset password', ip: request.ip })
          await c.mail({ template: 'password-changed', to: user.email, name: user.name, resetLink: links.forgotPassword() })
          return true
        })
        if (!reset) throw invalidLink()
        // A throttled owner can get back in: the reset clears the sign-in counter, and this browser
        // (which followed the e-mailed link) is remembered, so that its sign-ins no longer count
        // against the account however hard someone else keeps trying (decision 0301).
        await ctx.limiter.reset(RULES.loginAccount, user.email)
        ctx.deviceTokens.remember(request, reply, user.id, ctx.clock())
        return done('Password reset successfully!')
      },
    )
  }
}
