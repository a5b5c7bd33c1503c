import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { passwordPolicyProblem } from '~shared/password-policy'
import { changePasswordSchema, updateProfileSchema } from '~shared/schemas/profile'
import { userSchema } from '~shared/schemas/user'
import { retireOneTimeTokens } from '~server/auth/one-time-tokens'
import { revokeUserSessions } from '~server/auth/sessions'
import type { AppContext } from '~server/context'
import { commitChange } from '~server/change'
import { describeChanges } from '~server/data/describe-changes'
import { findCredentialsByEmail, toUser, userColumns } from '~server/data/users'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { fieldErrors } from '~server/http/errors'
import { pageLinks } from '~shared/paths'
import type { RateLimitRule } from '~server/rate-limit/rules'

/** The signed-in user's own profile: read it, change name and phone, change the password. */

/** Guesses at the current password from a signed-in session (a stolen token, an open laptop). */
const currentPasswordGuesses: RateLimitRule = { name: 'change-password-account', max: 10, windowSeconds: 15 * 60 }

export function profileRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const links = pageLinks(ctx.config.appUrl)
  return async (app) => {
    app.get(
      '/users/profile',
      { schema: { response: { 200: envelope(userSchema), ...failures(401, 403, 503) } } },
      async (request) => ok(toUser(requireAuth(request).user)),
    )

    app.put(
      '/users/profile',
      { schema: { body: updateProfileSchema, response: { 200: envelope(userSchema), ...failures(400, 401, 403, 503) } } },
      async (request) => {
        const { user } = requireAuth(request)
        const { name, phone } = request.body
        const changes = describeChanges(user, { name, phone })
        if (changes.fields.length === 0) return ok(toUser(user), 'Profile updated successfully')
        const updated = await commitChange(ctx, async (c) => {
          const row = await c.trx
            .updateTable('users')
            .set({ ...changes.values, updated_at: c.now })
            .where('id', '=', user.id)
            .returning(userColumns)
            .executeTakeFirstOrThrow()
          await c.record({ userId: user.id, kind: 'updated', activity: 'Updated profile', details: changes.details, ip: request.ip })
          return row
        })
        return ok(toUser(updated), 'Profile updated successfully')
      },
    )

    app.put(
      '/users/change-password',
      { schema: { body: changePasswordSchema, response: { 200: messageOnly, ...failures(400, 401, 403, 429, 503) } } },
      async (request) => {
        const { user, sessionId } = requireAuth(request)
        const { currentPassword, newPassword } = request.body
        const problem = passwordPolicyProblem(newPassword, user.email)
        if (problem) throw fieldErrors([{ field: 'newPassword', message: problem }])

        await ctx.limiter.consume(currentPasswordGuesses, user.id)
        const credentials = await findCredentialsByEmail(ctx.db, user.email)
        if (!credentials || !(await ctx.hasher.verify(credentials.password_hash, currentPassword))) {
          await commitChange(ctx, (c) =>
            c.record({ userId: user.id, kind: 'other', activity: 'Failed password change', details: 'Wrong current password', ip: request.ip }),
          )
          throw fieldErrors([{ field: 'currentPassword', message: 'Current password is incorrect' }])
        }
        await ctx.limiter.reset(currentPasswordGuesses, user.id)

        const passwordHash = await ctx.hasher.hash(newPassword)
        await commitChange(ctx, async (c) => {
          await c.trx.updateTable('users').set({ password_hash: passwordHash, updated_at: c.now }).where('id', '=', user.id).execute()
          // Every other session ends; the one that made the change stays signed in.
          await revokeUserSessions(c.trx, user.id, 'password changed', c.now, sessionId)
          await retireOneTimeTokens(c.trx, user.id, 'reset-password', c.now)
          await c.record({ userId: user.id, kind: 'updated', activity: 'Changed password', ip: request.ip })
          await c.mail({ template: 'password-changed', to: user.email, name: user.name, resetLink: links.forgotPassword() })
        })
        return done('Password changed successfully')
      },
    )
  }
}
