import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { identityParamsSchema, linkedIdentityListSchema } from '~shared/schemas/federation'
import type { AppContext } from '~server/context'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { listMyIdentities, unlinkIdentity } from '~server/use-cases/identity-providers/linked-identities'

/** Linked sign-in methods, seen by their owner: the list, and unlinking (never the last way in). */
export function linkedIdentityRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/auth/identities', { schema: { response: { 200: envelope(linkedIdentityListSchema), ...failures(401, 403, 503) } } }, async (request) =>
      ok({ identities: await listMyIdentities(ctx, requireAuth(request).user.id) }),
    )

    app.delete(
      '/auth/identities/:id',
      { schema: { params: identityParamsSchema, response: { 200: messageOnly, ...failures(401, 403, 404, 409, 503) } } },
      async (request) => {
        await unlinkIdentity(ctx, { userId: requireAuth(request).user.id, identityId: request.params.id, ip: request.ip })
        return done('Sign-in method unlinked')
      },
    )
  }
}
