import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { adminUpdateUserSchema, inviteUserSchema } from '~shared/schemas/admin'
import { adminUserSchema, userListQuerySchema, userListSchema } from '~shared/schemas/lists'
import { userSchema } from '~shared/schemas/user'
import type { AppContext } from '~server/context'
import { listUsers } from '~server/data/users/user-list'
import { findAdminUserById, isUuid, toAdminUser, toUser } from '~server/data/users/users'
import { requireActor } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { requestLanguage } from '~server/http/request-language'
import { notFound } from '~server/http/errors'
import { deleteUser } from '~server/use-cases/users/delete-user'
import { editUser } from '~server/use-cases/users/edit-user'
import { inviteUser } from '~server/use-cases/invitations/invite-user'
import { resendInvitation } from '~server/use-cases/invitations/resend-invitation'
import { resetSecondFactors } from '~server/use-cases/two-factor/reset-second-factors'
import { sendResetLink } from '~server/use-cases/passwords/send-reset-link'
import { signOutUser } from '~server/use-cases/users/sign-out-user'

/**
 * User management (ADMIN only, by the permission table): list, read, invite, edit, delete, and the
 * admin's actions on a user's security (a reset link, signing out everywhere, turning two-factor
 * off and removing the passkeys).
 */

/** Any string: an id that is not a UUID is simply not found, never a database error. */
const idParams = z.object({ id: z.string() })

function userId(id: string): string {
  if (!isUuid(id)) throw notFound('User not found', 'USER_NOT_FOUND')
  return id.toLowerCase()
}

export function adminUserRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/users',
      { schema: { querystring: userListQuerySchema, response: { 200: envelope(userListSchema), ...failures(400, 401, 403, 503) } } },
      async (request) => {
        const { page, limit } = request.query
        const { users, total } = await listUsers(ctx.db, { ...request.query, now: ctx.clock() })
        return ok({ users: users.map(toAdminUser), pagination: { page, limit, total, pages: Math.ceil(total / limit) } })
      },
    )

    app.get('/admin/users/:id', { schema: { params: idParams, response: { 200: envelope(adminUserSchema), ...failures(401, 403, 404, 503) } } }, async (request) => {
      const user = await findAdminUserById(ctx.db, userId(request.params.id))
      if (!user) throw notFound('User not found', 'USER_NOT_FOUND')
      return ok(toAdminUser(user))
    })

    app.put(
      '/admin/users/:id',
      {
        schema: {
          params: idParams,
          body: adminUpdateUserSchema,
          response: { 200: envelope(userSchema), ...failures(400, 401, 403, 404, 409, 503) },
        },
      },
      async (request) => {
        const actor = requireActor(request)
        const targetId = userId(request.params.id)
        const updated = await editUser(ctx, { ...actor, targetId, ip: request.ip, lang: requestLanguage(request) }, request.body)
        return ok(toUser(updated), 'User updated successfully')
      },
    )

    app.post(
      '/admin/users',
      { schema: { body: inviteUserSchema, response: { 201: envelope(userSchema), ...failures(400, 401, 403, 409, 503) } } },
      async (request, reply) => {
        const actor = requireActor(request)
        const created = await inviteUser(ctx, { ...actor, ip: request.ip, lang: requestLanguage(request) }, request.body)
        void reply.code(201)
        return ok(toUser(created), 'Invitation sent')
      },
    )

    app.post('/admin/users/:id/invitation', { schema: { params: idParams, response: { 200: messageOnly, ...failures(401, 403, 404, 409, 503) } } }, async (request) => {
      const actor = requireActor(request)
      await resendInvitation(ctx, { ...actor, targetId: userId(request.params.id), ip: request.ip, lang: requestLanguage(request) })
      return done('Invitation sent again')
    })

    app.post('/admin/users/:id/password-reset', { schema: { params: idParams, response: { 200: messageOnly, ...failures(401, 403, 404, 503) } } }, async (request) => {
      const actor = requireActor(request)
      await sendResetLink(ctx, { ...actor, targetId: userId(request.params.id), ip: request.ip, lang: requestLanguage(request) })
      return done('Password reset link sent')
    })

    app.delete('/admin/users/:id/mfa', { schema: { params: idParams, response: { 200: messageOnly, ...failures(401, 403, 404, 503) } } }, async (request) => {
      const actor = requireActor(request)
      const reset = await resetSecondFactors(ctx, { ...actor, targetId: userId(request.params.id), ip: request.ip, lang: requestLanguage(request) })
      return done(reset ? 'Two-factor authentication and passkeys reset' : 'The user had no two-factor authentication or passkeys to reset')
    })

    app.delete('/admin/users/:id/sessions', { schema: { params: idParams, response: { 200: messageOnly, ...failures(401, 403, 404, 503) } } }, async (request) => {
      const actor = requireActor(request)
      await signOutUser(ctx, { ...actor, targetId: userId(request.params.id), ip: request.ip, lang: requestLanguage(request) })
      return done('User signed out everywhere')
    })

    app.delete('/admin/users/:id', { schema: { params: idParams, response: { 200: messageOnly, ...failures(401, 403, 404, 409, 503) } } }, async (request) => {
      const actor = requireActor(request)
      await deleteUser(ctx, { ...actor, targetId: userId(request.params.id), ip: request.ip, lang: requestLanguage(request) })
      return done('User deleted successfully')
    })
  }
}
