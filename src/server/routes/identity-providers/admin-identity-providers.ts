import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  createIdentityProviderSchema,
  identityProviderListSchema,
  identityProviderParamsSchema,
  identityProviderResultSchema,
  updateIdentityProviderSchema,
} from '~shared/schemas/identity-providers'
import type { AppContext } from '~server/context'
import { findProvider, listProviders, toIdentityProvider } from '~server/data/identity-providers/identity-providers'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { createIdentityProvider } from '~server/use-cases/identity-providers/create-identity-provider'
import { deleteIdentityProvider } from '~server/use-cases/identity-providers/delete-identity-provider'
import { editIdentityProvider } from '~server/use-cases/identity-providers/edit-identity-provider'
import { providerNotFound } from '~server/use-cases/identity-providers/provider-rules'

/** The identity providers people sign in with (ADMIN only, by the permission table): list, read, add, edit, delete. */
export function adminIdentityProviderRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const actionOf = (request: Parameters<typeof requireAuth>[0]) => ({ actorId: requireAuth(request).user.id, ip: request.ip })

    app.get('/admin/identity-providers', { schema: { response: { 200: envelope(identityProviderListSchema), ...failures(401, 403, 503) } } }, async () =>
      ok({ identityProviders: (await listProviders(ctx.db)).map(toIdentityProvider) }),
    )

    app.post(
      '/admin/identity-providers',
      { schema: { body: createIdentityProviderSchema, response: { 201: envelope(identityProviderResultSchema), ...failures(400, 401, 403, 503) } } },
      async (request, reply) => {
        const identityProvider = await createIdentityProvider(ctx, actionOf(request), request.body)
        void reply.code(201)
        return ok({ identityProvider }, 'Identity provider created')
      },
    )

    app.get(
      '/admin/identity-providers/:id',
      { schema: { params: identityProviderParamsSchema, response: { 200: envelope(identityProviderResultSchema), ...failures(401, 403, 404, 503) } } },
      async (request) => {
        const row = await findProvider(ctx.db, request.params.id)
        if (!row) throw providerNotFound()
        return ok({ identityProvider: toIdentityProvider(row) })
      },
    )

    app.put(
      '/admin/identity-providers/:id',
      {
        schema: {
          params: identityProviderParamsSchema,
          body: updateIdentityProviderSchema,
          response: { 200: envelope(identityProviderResultSchema), ...failures(400, 401, 403, 404, 503) },
        },
      },
      async (request) => {
        const identityProvider = await editIdentityProvider(ctx, actionOf(request), request.params.id, request.body)
        return ok({ identityProvider }, 'Identity provider updated')
      },
    )

    app.delete(
      '/admin/identity-providers/:id',
      { schema: { params: identityProviderParamsSchema, response: { 200: messageOnly, ...failures(401, 403, 404, 503) } } },
      async (request) => {
        await deleteIdentityProvider(ctx, actionOf(request), request.params.id)
        return done('Identity provider deleted')
      },
    )
  }
}
