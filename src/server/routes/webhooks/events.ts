import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { eventFeedQuerySchema, eventFeedSchema } from '~shared/schemas/webhooks'
import type { AppContext } from '~server/context'
import { requireActor } from '~server/http/auth-guard'
import { envelope, failures, ok } from '~server/http/envelope'
import { readEvents } from '~server/use-cases/webhooks/read-events'

/** The events feed: every event of the last 30 days, in order, from a cursor (contract section 12); ADMIN, or the scope activity:read. */
export function eventFeedRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/events',
      { schema: { querystring: eventFeedQuerySchema, response: { 200: envelope(eventFeedSchema), ...failures(400, 401, 403, 503) } } },
      async (request) => {
        // An admin, or a service application with activity:read (the guard checked the scope).
        requireActor(request)
        return ok(await readEvents(ctx, request.query))
      },
    )
  }
}
