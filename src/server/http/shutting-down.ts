import type { FastifyInstance } from 'fastify'
import { sendFailure } from './error-handler'
import { SECURITY_HEADERS } from './security-headers'

/**
 * Once the server starts closing (SIGTERM), requests that still arrive on open connections are
 * answered at once with the contract's envelope: a 503 with the code SHUTTING_DOWN and
 * Retry-After, on a connection that is then closed. Nothing of them has been done, so a proxy may
 * send them to another instance (docs/deploying.md). Fastify's own closing answer is not an envelope.
 */
export function registerShuttingDown(app: FastifyInstance): void {
  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing) return done()
    void reply.headers(SECURITY_HEADERS).header('Cache-Control', 'no-store').header('Connection', 'close').header('Retry-After', '5')
    void sendFailure(request, reply, { status: 503, message: 'The server is shutting down. Please try again.', code: 'SHUTTING_DOWN' })
  })
}
