import crypto from 'node:crypto'
import cookie from '@fastify/cookie'
import cors from '@fastify/cors'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'
import { CSRF_HEADER } from '../shared/constants'
import type { AppContext } from './context'
import { registerAuthGuard } from './http/auth-guard'
import { answerClientError, answerFrameworkError, registerErrorHandler } from './http/error-handler'
import { registerHostCheck } from './http/host-check'
import { registerJsonBodyParser } from './http/json-body'
import { registerSecurityHeaders } from './http/security-headers'
import { healthRoutes } from './routes/health'
import { probeRoutes } from './routes/probes'
import { referenceRoutes } from './routes/reference/reference-routes'
import { registerOpenApi } from './http/openapi'
import { registerShuttingDown } from './http/shutting-down'
import { registerHttpMetrics } from './metrics/http-metrics'
import { metricsRoutes } from './metrics/metrics-route'
import { passwordResetRoutes } from './routes/auth/password-reset'
import { registrationRoutes } from './routes/auth/registration'
import { sessionRoutes } from './routes/auth/session'
import { outboxRoutes } from './routes/dev-outbox'
import { webRoutes } from './routes/web'
import { activityRoutes } from './routes/activity'
import { adminStatsRoutes } from './routes/admin/stats'
import { adminUserRoutes } from './routes/admin/users'
import { profileRoutes } from './routes/profile'
import { pictureRoutes } from './pictures/picture-routes'

export interface BuildOptions {
  /** Serve the built web app from this folder (production bundle). */
  webDir?: string
  /** Show the outbox page at /dev/outbox (development, outbox mode, loopback only). */
  outboxPage?: boolean
}

/**
 * The whole HTTP application as one Fastify instance, used alike by the server and by the tests.
 * Order matters: error handling and headers first, then the guard, then the routes.
 */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    trustProxy: ctx.config.trustProxy.length > 0 ? ctx.config.trustProxy : false,
    bodyLimit: 1024 * 1024,
    // Answered by registerShuttingDown instead, in the envelope.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 200 },
    // Requests the router cannot take (a broken %-escape, an over-long path parameter) and
    // malformed HTTP get the contract's envelope and headers too, not Fastify's own body.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  })
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  registerJsonBodyParser(app)
  app.addHook('onSend', async (request, reply) => {
    void reply.header('X-Request-Id', request.id)
  })

  registerErrorHandler(app)
  registerShuttingDown(app)
  registerHttpMetrics(app, ctx.metrics)
  await registerSecurityHeaders(app)
  // Before CORS, the guard and every route: a foreign Host reaches nothing (DNS rebinding).
  registerHostCheck(app, ctx.config.appUrl, ctx.config.allowedHosts)
  await app.register(cors, {
    // Only the app's own origin; a foreign Origin is never echoed back.
    origin: [new URL(ctx.config.appUrl).origin],
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Content-Type', 'Authorization', CSRF_HEADER],
    exposedHeaders: [CSRF_HEADER, 'X-Request-Id', 'Retry-After'],
    maxAge: 600,
  })
  // Cookies are read for one thing only: the device cookie of sign-in (auth/device-tokens.ts).
  await app.register(cookie)
  registerAuthGuard(app, ctx)
  await registerOpenApi(app)

  await app.register(
    async (api) => {
      await api.register(healthRoutes(ctx))
      await api.register(probeRoutes(ctx))
      await api.register(registrationRoutes(ctx))
      await api.register(sessionRoutes(ctx))
      await api.register(passwordResetRoutes(ctx))
      await api.register(profileRoutes(ctx))
      await api.register(pictureRoutes(ctx))
      await api.register(activityRoutes(ctx))
      await api.register(adminUserRoutes(ctx))
      await api.register(adminStatsRoutes(ctx))
      await api.register(referenceRoutes())
    },
    { prefix: '/api' },
  )

  await app.register(metricsRoutes(ctx))
  if (options.outboxPage) await app.register(outboxRoutes(ctx))
  if (options.webDir) await app.register(webRoutes(options.webDir, { supportEmail: ctx.config.supportEmail }))
  return app
}
