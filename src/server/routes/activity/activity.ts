import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { activityListQuerySchema, activityListSchema, activityLogQuerySchema } from '~shared/schemas/lists'
import type { AppContext } from '~server/context'
import { listActivities, toActivityEntry } from '~server/data/activity/activity-list'
import { requireActor, requireAuth } from '~server/http/auth-guard'
import { envelope, failures, ok } from '~server/http/envelope'

/** Activity logs: the caller's own entries, and everyone's for staff (permission table). */
export function activityRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const response = { 200: envelope(activityListSchema), ...failures(400, 401, 403, 503) }
  return async (app) => {
    app.get('/activity', { schema: { querystring: activityListQuerySchema, response } }, async (request) => {
      const { user } = requireAuth(request)
      const { page, limit } = request.query
      const { rows, total } = await listActivities(ctx.db, { ...request.query, ownerId: user.id })
      return ok({
        activities: rows.map((row) => toActivityEntry(row, false)),
        pagination: { page, limit, total, pages: Math.ceil(total / limit) },
      })
    })

    app.get('/admin/activity-logs', { schema: { querystring: activityLogQuerySchema, response } }, async (request) => {
      requireActor(request)
      const { page, limit } = request.query
      const { rows, total } = await listActivities(ctx.db, request.query)
      return ok({
        activities: rows.map((row) => toActivityEntry(row, true)),
        pagination: { page, limit, total, pages: Math.ceil(total / limit) },
      })
    })
  }
}
