import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  applicationListSchema,
  applicationParamsSchema,
  applicationResultSchema,
  clientSecretSchema,
  createApplicationSchema,
  createdApplicationSchema,
  updateApplicationSchema,
} from '~shared/schemas/applications'
import { apiKeyListSchema, apiKeyParamsSchema, createApiKeySchema, createdApiKeySchema } from '~shared/schemas/api-keys'
import type { AppContext } from '~server/context'
import { listApiKeys, toApiKey } from '~server/data/applications/api-keys'
import { findApplication, listApplications, toApplication } from '~server/data/applications/applications'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { applicationNotFound } from '~server/use-cases/applications/application-rules'
import { createApiKey } from '~server/use-cases/applications/create-api-key'
import { createApplication } from '~server/use-cases/applications/create-application'
import { deleteApiKey } from '~server/use-cases/applications/delete-api-key'
import { deleteApplication } from '~server/use-cases/applications/delete-application'
import { editApplication } from '~server/use-cases/applications/edit-application'
import { replaceApplicationSecret } from '~server/use-cases/applications/replace-application-secret'

/**
 * The applications that sign people in with Accounts (ADMIN only, by the permission table):
 * list, read, register, edit (disable, enable), replace the client secret, delete.
 */
export function adminApplicationRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const actionOf = (request: Parameters<typeof requireAuth>[0]) => ({ actorId: requireAuth(request).user.id, ip: request.ip })

    app.get('/admin/applications', { schema: { response: { 200: envelope(applicationListSchema), ...failures(401, 403, 503) } } }, async () =>
      ok({ applications: (await listApplications(ctx.db)).map(toApplication) }),
    )

    app.post(
      '/admin/applications',
      { schema: { body: createApplicationSchema, response: { 201: envelope(createdApplicationSchema), ...failures(400, 401, 403, 503) } } },
      async (request, reply) => {
        const created = await createApplication(ctx, actionOf(request), request.body)
        void reply.code(201)
        return ok(created, 'Application created')
      },
    )

    app.get(
      '/admin/applications/:id',
      { schema: { params: applicationParamsSchema, response: { 200: envelope(applicationResultSchema), ...failures(401, 403, 404, 503) } } },
      async (request) => {
        const row = await findApplication(ctx.db, request.params.id)
        if (!row) throw applicationNotFound()
        return ok({ application: toApplication(row) })
      },
    )

    app.put(
      '/admin/applications/:id',
      {
        schema: {
          params: applicationParamsSchema,
          body: updateApplicationSchema,
          response: { 200: envelope(applicationResultSchema), ...failures(400, 401, 403, 404, 503) },
        },
      },
      async (request) => {
        const application = await editApplication(ctx, actionOf(request), request.params.id, request.body)
        return ok({ application }, 'Application updated')
      },
    )

    app.post(
      '/admin/applications/:id/secret',
      { schema: { params: applicationParamsSchema, response: { 200: envelope(clientSecretSchema), ...failures(401, 403, 404, 409, 503) } } },
      async (request) => ok({ clientSecret: await replaceApplicationSecret(ctx, actionOf(request), request.params.id) }, 'Client secret replaced'),
    )

    app.delete(
      '/admin/applications/:id',
      { schema: { params: applicationParamsSchema, response: { 200: messageOnly, ...failures(401, 403, 404, 503) } } },
      async (request) => {
        await deleteApplication(ctx, actionOf(request), request.params.id)
        return done('Application deleted')
      },
    )

    // A service application's API keys (contract section 11): the secret is in the creation's answer only.
    app.get(
      '/admin/applications/:id/keys',
      { schema: { params: applicationParamsSchema, response: { 200: envelope(apiKeyListSchema), ...failures(401, 403, 404, 503) } } },
      async (request) => {
        const row = await findApplication(ctx.db, request.params.id)
        if (!row) throw applicationNotFound()
        return ok({ keys: (await listApiKeys(ctx.db, row.id)).map(toApiKey) })
      },
    )

    app.post(
      '/admin/applications/:id/keys',
      {
        schema: {
          params: applicationParamsSchema,
          body: createApiKeySchema,
          response: { 201: envelope(createdApiKeySchema), ...failures(400, 401, 403, 404, 409, 503) },
        },
      },
      async (request, reply) => {
        const created = await createApiKey(ctx, actionOf(request), request.params.id, request.body)
        void reply.code(201)
        return ok(created, 'API key created')
      },
    )

    app.delete(
      '/admin/applications/:id/keys/:keyId',
      { schema: { params: apiKeyParamsSchema, response: { 200: messageOnly, ...failures(401, 403, 404, 503) } } },
      async (request) => {
        await deleteApiKey(ctx, actionOf(request), request.params.id, request.params.keyId)
        return done('API key deleted')
      },
    )
  }
}
