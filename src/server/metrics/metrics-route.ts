import type { FastifyPluginAsync } from 'fastify'
import type { AppContext } from '../context'
import { sendFailure } from '../http/error-handler'
import { mayReadMetrics } from './metrics-access'

/**
 * GET /metrics, in Prometheus text format: open to a scraper on this machine, elsewhere only with
 * `Authorization: Bearer $METRICS_TOKEN` (contract section 8). Outside /api: it is for the
 * operators' tools, not part of the product's API.
 */
export function metricsRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/metrics', async (request, reply) => {
      void reply.header('Cache-Control', 'no-store')
      if (!mayReadMetrics(request, ctx.config.metricsToken)) {
        void reply.header('WWW-Authenticate', 'Bearer realm="metrics"')
        return sendFailure(request, reply, {
          status: 401,
          message: ctx.config.metricsToken
            ? 'Metrics need the bearer token (METRICS_TOKEN)'
            : 'Metrics are open on loopback only (set METRICS_TOKEN to scrape from elsewhere)',
          code: 'UNAUTHORIZED',
        })
      }
      return reply.type(ctx.metrics.contentType).send(await ctx.metrics.text())
    })
  }
}
