import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { changePasswordSchema, updateProfileSchema } from '~shared/schemas/profile'
import { userSchema } from '~shared/schemas/user'
import type { AppContext } from '~server/context'
import { toUser } from '~server/data/users/users'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { requestLanguage } from '~server/http/request-language'
import { changePassword } from '~server/use-cases/passwords/change-password'
import { updateProfile } from '~server/use-cases/profile/update-profile'

/** The signed-in user's own profile: read it, change name and phone, change the password. */
export function profileRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/users/profile', { schema: { response: { 200: envelope(userSchema), ...failures(401, 403, 503) } } }, async (request) =>
      ok(toUser(requireAuth(request).user)),
    )

    app.put('/users/profile', { schema: { body: updateProfileSchema, response: { 200: envelope(userSchema), ...failures(400, 401, 403, 503) } } }, async (request) => {
      const { name, phone } = request.body
      const updated = await updateProfile(ctx, { user: requireAuth(request).user, name, phone, ip: request.ip })
      return ok(toUser(updated), 'Profile updated successfully')
    })

    app.put(
      '/users/change-password',
      { schema: { body: changePasswordSchema, response: { 200: messageOnly, ...failures(400, 401, 403, 429, 503) } } },
      async (request) => {
        const { currentPassword, newPassword } = request.body
        await changePassword(ctx, { ...requireAuth(request), currentPassword, newPassword, ip: request.ip, lang: requestLanguage(request) })
        return done('Password changed successfully')
      },
    )
  }
}
