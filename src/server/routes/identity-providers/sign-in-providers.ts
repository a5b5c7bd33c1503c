import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { discoveredProviderSchema, discoverProviderQuerySchema, signInProviderListSchema } from '~shared/schemas/identity-providers'
import type { AppContext } from '~server/context'
import { envelope, failures, ok } from '~server/http/envelope'
import { discoverProvider, listSignInProviders } from '~server/use-cases/identity-providers/sign-in-providers'

/** Public: the providers the sign-in and registration pages offer, and the one an address's domain routes to. */
export function signInProviderRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/auth/identity-providers', { schema: { response: { 200: envelope(signInProviderListSchema), ...failures(503) } } }, async () =>
      ok({ identityProviders: await listSignInProviders(ctx) }),
    )

    app.get(
      '/auth/identity-providers/discover',
      { schema: { querystring: discoverProviderQuerySchema, response: { 200: envelope(discoveredProviderSchema), ...failures(400, 503) } } },
      async (request) => ok({ identityProvider: await discoverProvider(ctx, request.query.email) }),
    )
  }
}
