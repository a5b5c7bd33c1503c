import type { FastifyInstance } from 'fastify'
import helmet from 'helmet'

/**
 * The contract's headers: a strict CSP (no inline script at all: the theme is set by a small
 * same-origin script), no framing, no sniffing, a strict referrer policy, and `no-store` on every
 * API answer so tokens and personal data never sit in a shared or browser cache.
 *
 * helmet's middleware is built once here and applied to every answer (the Fastify wrapper
 * rebuilds it on each request, which showed up in profiles).
 */
const applyHelmet = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      // Component libraries set inline style attributes (positions of menus and toasts).
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'blob:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  crossOriginEmbedderPolicy: false,
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  strictTransportSecurity: false,
})

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith('/api/')) void reply.header('Cache-Control', 'no-store')
    applyHelmet(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined))
  })
}
