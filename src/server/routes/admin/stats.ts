import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { adminStatsSchema } from '~shared/schemas/lists'
import type { AppContext } from '~server/context'
import { recentActivities, toActivityEntry } from '~server/data/activity-list'
import { userTotals } from '~server/data/counts'
import { envelope, failures, ok } from '~server/http/envelope'

/**
 * The admin dashboard's numbers, from the trigger-kept counters (no count of the users table).
 * `inactive` counts INACTIVE and SUSPENDED together, as the dashboard card does. Ten recent
 * entries: the dashboard shows five and offers "View All Activities" when there are more.
 */
const RECENT_ACTIVITIES = 10

export function adminStatsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/stats',
      { schema: { response: { 200: envelope(adminStatsSchema), ...failures(401, 403, 503) } } },
      async () => {
        const [totals, recent] = await Promise.all([userTotals(ctx.db), recentActivities(ctx.db, RECENT_ACTIVITIES)])
        return ok({
          stats: {
            totalUsers: totals.total,
            byStatus: {
              active: totals.byStatus.ACTIVE,
              inactive: totals.byStatus.INACTIVE + totals.byStatus.SUSPENDED,
              suspended: totals.byStatus.SUSPENDED,
            },
            byRole: {
              admins: totals.byRole.ADMIN,
              developers: totals.byRole.DEVELOPER,
              moderators: totals.byRole.MODERATOR,
              clients: totals.byRole.CLIENT,
            },
          },
          recentActivities: recent.map((row) => toActivityEntry(row, true)),
        })
      },
    )
  }
}
