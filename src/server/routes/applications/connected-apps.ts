import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { connectedAppListSchema, connectedAppParamsSchema } from '~shared/schemas/connected-apps'
import type { AppContext } from '~server/context'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { listMyConnectedApps } from '~server/use-cases/applications/list-connected-apps'
import { removeAppAccess } from '~server/use-cases/applications/remove-app-access'

/** Connected apps: the applications the signed-in person allowed through "Sign in with Accounts". */
export function connectedAppRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/auth/applications', { schema: { response: { 200: envelope(connectedAppListSchema), ...failures(401, 403, 503) } } }, async (request) =>
      ok({ applications: await listMyConnectedApps(ctx, requireAuth(request).user.id) }),
    )

    app.delete(
      '/auth/applications/:id',
      { schema: { params: connectedAppParamsSchema, response: { 200: messageOnly, ...failures(401, 403, 404, 503) } } },
      async (request) => {
        await removeAppAccess(ctx, { userId: requireAuth(request).user.id, applicationId: request.params.id, ip: request.ip })
        return done('Access removed')
      },
    )
  }
}
