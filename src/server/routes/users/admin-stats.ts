import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { adminStatsSchema } from '~shared/schemas/lists'
import type { AppContext } from '~server/context'
import { adminStats } from '~server/data/users/admin-stats'
import { envelope, failures, ok } from '~server/http/envelope'

/** The admin dashboard's numbers and recent activity. */
export function adminStatsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/admin/stats', { schema: { response: { 200: envelope(adminStatsSchema), ...failures(401, 403, 503) } } }, async () =>
      ok(await adminStats(ctx.db, ctx.clock())),
    )
  }
}
