import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  createdWebhookSchema,
  createWebhookSchema,
  deliveryListQuerySchema,
  deliveryListSchema,
  deliveryParamsSchema,
  updateWebhookSchema,
  webhookListSchema,
  webhookParamsSchema,
  webhookResultSchema,
  webhookSecretSchema,
} from '~shared/schemas/webhooks'
import type { AppContext } from '~server/context'
import { listDeliveries } from '~server/data/webhooks/deliveries'
import { findWebhook, listWebhooks, toWebhook } from '~server/data/webhooks/webhooks'
import { requireAuth } from '~server/http/auth-guard'
import { done, envelope, failures, messageOnly, ok } from '~server/http/envelope'
import { createWebhook } from '~server/use-cases/webhooks/create-webhook'
import { deleteWebhook } from '~server/use-cases/webhooks/delete-webhook'
import { editWebhook } from '~server/use-cases/webhooks/edit-webhook'
import { replaceWebhookSecret } from '~server/use-cases/webhooks/replace-webhook-secret'
import { retryDelivery } from '~server/use-cases/webhooks/retry-delivery'
import { sendTestEvent } from '~server/use-cases/webhooks/send-test-event'
import { webhookNotFound } from '~server/use-cases/webhooks/webhook-rules'

/**
 * Webhook endpoints (ADMIN only, by the permission table): list, add, edit, replace the secret,
 * delete, send a test event; each endpoint's deliveries, and sending one again.
 */
export function adminWebhookRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const actionOf = (request: Parameters<typeof requireAuth>[0]) => ({ actorId: requireAuth(request).user.id, ip: request.ip })

    app.get('/admin/webhooks', { schema: { response: { 200: envelope(webhookListSchema), ...failures(401, 403, 503) } } }, async () =>
      ok({ webhooks: (await listWebhooks(ctx.db)).map(toWebhook) }),
    )

    app.post(
      '/admin/webhooks',
      { schema: { body: createWebhookSchema, response: { 201: envelope(createdWebhookSchema), ...failures(400, 401, 403, 503) } } },
      async (request, reply) => {
        const created = await createWebhook(ctx, actionOf(request), request.body)
        void reply.code(201)
        return ok(created, 'Webhook created')
      },
    )

    app.put(
      '/admin/webhooks/:id',
      {
        schema: {
          params: webhookParamsSchema,
          body: updateWebhookSchema,
          response: { 200: envelope(webhookResultSchema), ...failures(400, 401, 403, 404, 503) },
        },
      },
      async (request) => ok({ webhook: await editWebhook(ctx, actionOf(request), request.params.id, request.body) }, 'Webhook updated'),
    )

    app.delete('/admin/webhooks/:id', { schema: { params: webhookParamsSchema, response: { 200: messageOnly, ...failures(401, 403, 404, 503) } } }, async (request) => {
      await deleteWebhook(ctx, actionOf(request), request.params.id)
      return done('Webhook deleted')
    })

    app.post(
      '/admin/webhooks/:id/secret',
      { schema: { params: webhookParamsSchema, response: { 200: envelope(webhookSecretSchema), ...failures(401, 403, 404, 503) } } },
      async (request) => ok({ secret: await replaceWebhookSecret(ctx, actionOf(request), request.params.id) }, 'Secret replaced'),
    )

    app.post(
      '/admin/webhooks/:id/test',
      { schema: { params: webhookParamsSchema, response: { 202: messageOnly, ...failures(401, 403, 404, 503) } } },
      async (request, reply) => {
        await sendTestEvent(ctx, actionOf(request), request.params.id)
        void reply.code(202)
        return done('Test event queued')
      },
    )

    app.get(
      '/admin/webhooks/:id/deliveries',
      {
        schema: {
          params: webhookParamsSchema,
          querystring: deliveryListQuerySchema,
          response: { 200: envelope(deliveryListSchema), ...failures(400, 401, 403, 404, 503) },
        },
      },
      async (request) => {
        requireAuth(request)
        if (!(await findWebhook(ctx.db, request.params.id))) throw webhookNotFound()
        const { page, limit, status } = request.query
        const { deliveries, total } = await listDeliveries(ctx.db, { webhookId: request.params.id, page, limit, status: status === 'all' ? undefined : status })
        return ok({ deliveries, pagination: { page, limit, total, pages: Math.ceil(total / limit) } })
      },
    )

    app.post(
      '/admin/webhooks/:id/deliveries/:deliveryId/retry',
      { schema: { params: deliveryParamsSchema, response: { 202: messageOnly, ...failures(401, 403, 404, 503) } } },
      async (request, reply) => {
        requireAuth(request)
        await retryDelivery(ctx, request.params.id, request.params.deliveryId)
        void reply.code(202)
        return done('Delivery queued again')
      },
    )
  }
}
