import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { accountExportSchema, deleteAccountSchema } from '~shared/schemas/own-data'
import type { AppContext } from '~server/context'
import { requireAuth } from '~server/http/auth-guard'
import { done, failures, messageOnly } from '~server/http/envelope'
import { requestLanguage } from '~server/http/request-language'
import { deleteAccount } from '~server/use-cases/own-data/delete-account'
import { type AccountExportFile, exportAccountData } from '~server/use-cases/own-data/export-account-data'

/** A person's own data (contract section 15): all of it in one file, and deleting the account. */
export function ownDataRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/auth/export',
      {
        schema: {
          response: {
            200: {
              description: 'Everything kept about the caller, as one JSON document (not in the envelope), sent as an attachment',
              content: { 'application/json': { schema: accountExportSchema } },
            },
            ...failures(401, 403, 429, 503),
          },
        },
      },
      async (request, reply) => sendFile(reply, await exportAccountData(ctx, { ...requireAuth(request), ip: request.ip })),
    )

    app.post(
      '/auth/delete-account',
      { schema: { body: deleteAccountSchema, response: { 200: messageOnly, ...failures(400, 401, 403, 409, 429, 503) } } },
      async (request) => {
        await deleteAccount(ctx, { ...requireAuth(request), ...request.body, ip: request.ip, lang: requestLanguage(request) })
        return done('Your account has been deleted')
      },
    )
  }
}

/** The document as a download, streamed as it is written. */
function sendFile(reply: FastifyReply, file: AccountExportFile) {
  return reply
    .header('Content-Type', 'application/json; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${file.filename}"`)
    .header('Cache-Control', 'no-store')
    .send(Readable.from(file.body, { objectMode: false }))
}
