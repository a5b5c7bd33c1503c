import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { activityExportQuerySchema, userExportQuerySchema } from '~shared/schemas/lists'
import type { AppContext } from '~server/context'
import { requireActor } from '~server/http/auth-guard'
import { failures } from '~server/http/envelope'
import { type CsvExport, exportActivitiesCsv, exportUsersCsv } from '~server/use-cases/exports/export-csv'

/** CSV exports of the user list and of everyone's activity log (ADMIN only, by the permission table). */

const csv = (description: string) => ({ description, content: { 'text/csv': { schema: z.string() } } })

export function adminExportRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/users/export',
      { schema: { querystring: userExportQuerySchema, response: { 200: csv('The users the filters select, in the list order'), ...failures(400, 401, 403, 503) } } },
      async (request, reply) => {
        return send(reply, exportUsersCsv(ctx, { ...requireActor(request), ip: request.ip }, request.query))
      },
    )

    app.get(
      '/admin/activity-logs/export',
      { schema: { querystring: activityExportQuerySchema, response: { 200: csv('The entries the filters select, newest first'), ...failures(400, 401, 403, 503) } } },
      async (request, reply) => {
        return send(reply, exportActivitiesCsv(ctx, { ...requireActor(request), ip: request.ip }, request.query))
      },
    )
  }
}

function send(reply: FastifyReply, file: CsvExport) {
  return reply
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${file.filename}"`)
    .header('Cache-Control', 'no-store')
    .send(Readable.from(file.body, { objectMode: false }))
}
