import crypto from 'node:crypto'
import cookie from '@fastify/cookie'
import cors from '@fastify/cors'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'
import { CSRF_HEADER } from '~shared/constants'
import type { AppContext } from './context'
import { registerAuthGuard } from '~server/http/auth-guard'
import { answerClientError, answerFrameworkError, registerErrorHandler } from '~server/http/error-handler'
import { registerHostCheck } from '~server/http/host-check'
import { registerJsonBodyParser } from '~server/http/json-body'
import { registerSecurityHeaders } from '~server/http/security-headers'
import { healthRoutes } from '~server/routes/health'
import { invitationRoutes } from '~server/routes/invitations/invitation'
import { passkeyRoutes } from '~server/routes/passkeys/passkeys'
import { connectedAppRoutes } from '~server/routes/applications/connected-apps'
import { ownDataRoutes } from '~server/routes/own-data/own-data'
import { passwordResetRoutes } from '~server/routes/passwords/password-reset'
import { registrationRoutes } from '~server/routes/registration/registration'
import { sessionRoutes } from '~server/routes/sign-in/session'
import { deviceRoutes } from '~server/routes/devices/devices'
import { signInRoutes } from '~server/routes/sign-in/sign-in'
import { twoFactorRoutes } from '~server/routes/two-factor/two-factor'
import { outboxRoutes } from '~server/routes/dev-outbox'
import { webRoutes } from '~server/routes/web'
import { activityRoutes } from '~server/routes/activity/activity'
import { adminApplicationRoutes } from '~server/routes/applications/admin-applications'
import { adminWebhookRoutes } from '~server/routes/webhooks/admin-webhooks'
import { eventFeedRoutes } from '~server/routes/webhooks/events'
import { adminExportRoutes } from '~server/routes/exports/exports'
import { adminStatsRoutes } from '~server/routes/users/admin-stats'
import { adminUserRoutes } from '~server/routes/users/admin-users'
import { profileRoutes } from '~server/routes/profile/profile'
import { pictureRoutes } from '~server/routes/profile/pictures'
import { registerHttpMetrics } from '~server/metrics/http-metrics'
import { metricsRoutes } from '~server/metrics/metrics-route'
import { registerOpenApi } from '~server/http/openapi'
import { registerShuttingDown } from '~server/http/shutting-down'
import { probeRoutes } from '~server/routes/probes'
import { referenceRoutes } from '~server/routes/reference/reference-routes'
import { appSignInRoutes } from '~server/routes/applications/app-sign-in'
import { adminIdentityProviderRoutes } from '~server/routes/identity-providers/admin-identity-providers'
import { signInProviderRoutes } from '~server/routes/identity-providers/sign-in-providers'
import { providerSignInRoutes } from '~server/routes/identity-providers/provider-sign-in'
import { samlRoutes } from '~server/routes/identity-providers/saml'
import { linkedIdentityRoutes } from '~server/routes/identity-providers/linked-identities'
import { SCIM_PATH, scimRoutes } from '~server/routes/scim/scim'
import { mountProvider, OIDC_PATH } from '~server/oidc/mount'
import { webPageWithMeta } from '~server/oidc/pages'

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
    // malformed HTTP get the failure envelope and headers too, not Fastify's own body.
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
  registerSecurityHeaders(app)
  // Before CORS, the guard and every route: a foreign Host reaches nothing (DNS rebinding).
  registerHostCheck(app, ctx.config.appUrl, ctx.config.allowedHosts)
  const corsOptions = {
    // Only the app's own origin; a foreign Origin is never echoed back.
    origin: [new URL(ctx.config.appUrl).origin],
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Content-Type', 'Authorization', CSRF_HEADER],
    exposedHeaders: [CSRF_HEADER, 'X-Request-Id', 'Retry-After'],
    maxAge: 600,
  }
  await app.register(cors, {
    // The OpenID Connect provider answers CORS itself, per application (oidc/provider.ts).
    delegator: (request, callback) => {
      const url = request.url ?? ''
      callback(null, url === OIDC_PATH || url.startsWith(`${OIDC_PATH}/`) || url.startsWith(`${OIDC_PATH}?`) ? { origin: false } : corsOptions)
    },
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
      await api.register(signInRoutes(ctx))
      await api.register(sessionRoutes(ctx))
      await api.register(twoFactorRoutes(ctx))
      await api.register(deviceRoutes(ctx))
      await api.register(passkeyRoutes(ctx))
      await api.register(connectedAppRoutes(ctx))
      await api.register(ownDataRoutes(ctx))
      await api.register(passwordResetRoutes(ctx))
      await api.register(invitationRoutes(ctx))
      await api.register(profileRoutes(ctx))
      await api.register(pictureRoutes(ctx))
      await api.register(activityRoutes(ctx))
      await api.register(adminUserRoutes(ctx))
      await api.register(adminStatsRoutes(ctx))
      await api.register(adminExportRoutes(ctx))
      await api.register(appSignInRoutes(ctx))
      await api.register(adminApplicationRoutes(ctx))
      await api.register(adminIdentityProviderRoutes(ctx))
      await api.register(signInProviderRoutes(ctx))
      await api.register(providerSignInRoutes(ctx))
      await api.register(samlRoutes(ctx))
      await api.register(linkedIdentityRoutes(ctx))
      await api.register(adminWebhookRoutes(ctx))
      await api.register(eventFeedRoutes(ctx))
      await api.register(referenceRoutes())
    },
    { prefix: '/api' },
  )

  ctx.oidc.webPage = webPageWithMeta(options.webDir, ctx.config.appName)
  await mountProvider(app, ctx.oidc, ctx.config.appUrl)
  await app.register(scimRoutes(ctx), { prefix: SCIM_PATH })
  await app.register(metricsRoutes(ctx))
  if (options.outboxPage) await app.register(outboxRoutes(ctx))
  if (options.webDir) await app.register(webRoutes(options.webDir, { appName: ctx.config.appName, supportEmail: ctx.config.supportEmail }))
  return app
}
