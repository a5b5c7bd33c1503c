import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { sql } from 'kysely'
import { z } from 'zod'
import type { AppContext } from '~server/context'
import { envelope, failures, ok } from '~server/http/envelope'

/** Liveness and database reachability, for load balancers and for people. */
export function healthRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/health', { schema: { response: { 200: envelope(z.object({ status: z.literal('ok'), database: z.string() })), ...failures(503) } } }, async () => {
      await sql`SELECT 1`.execute(ctx.db)
      return ok({ status: 'ok' as const, database: ctx.dbKind })
    })
  }
}
