import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import helmet from 'helmet'

/**
 * The security headers (docs/security.md): a strict CSP (no inline script at all: the theme is set by a small
 * same-origin script), no framing, no sniffing, a strict referrer policy, and `no-store` on every
 * API answer so tokens and personal data never sit in a shared or browser cache.
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

/**
 * helmet's headers depend on nothing in the request (no nonces), so they are worked out once
 * and the same set goes on every answer: cheaper than running helmet per request, and usable
 * where there is no request to run it on (answers to requests the router could not take).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = (() => {
  const headers: Record<string, string> = {}
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value)
    },
    removeHeader: (name: string) => {
      delete headers[name]
    },
  }
  applyHelmet({} as IncomingMessage, response as unknown as ServerResponse, () => {})
  return Object.freeze(headers)
})()

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.headers(SECURITY_HEADERS)
    if (request.url.startsWith('/api/')) void reply.header('Cache-Control', 'no-store')
    done()
  })
}
