import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { identityParamsSchema, linkedIdentityListSchema, providerParamsSchema, startLinkResultSchema, startLinkSchema } from '~shared/schemas/federation'
import type { AppContext } from '~server/context'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { accountHasPassword, listMyIdentities, unlinkIdentity } from '~server/use-cases/identity-providers/linked-identities'
import { startLink } from '~server/use-cases/identity-providers/start-link'
import { setFederationCookie } from './provider-sign-in'

/** Linked sign-in methods, seen by their owner: the list, and unlinking (never the last way in). */
export function linkedIdentityRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/auth/identities', { schema: { response: { 200: envelope(linkedIdentityListSchema), ...failures(401, 403, 503) } } }, async (request) => {
      const userId = requireAuth(request).user.id
      // Two reads at once: on PostgreSQL, on two connections of the pool.
      const [identities, hasPassword] = await Promise.all([listMyIdentities(ctx, userId), accountHasPassword(ctx, userId)])
      return ok({ identities, hasPassword })
    })

    app.post(
      '/auth/identities/:providerId/link',
      { schema: { params: providerParamsSchema, body: startLinkSchema, response: { 200: envelope(startLinkResultSchema), ...failures(400, 401, 403, 404, 429, 503) } } },
      async (request, reply) => {
        const started = await startLink(ctx, { user: requireAuth(request).user, providerId: request.params.providerId, ...request.body, ip: request.ip })
        setFederationCookie(ctx, reply, started.cookie)
        return ok({ url: started.url })
      },
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
