import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SECURITY_HEADERS } from '~server/http/security-headers'
import { OIDC_PATH } from './paths'
import type { OidcService } from './service'

export { OIDC_PATH }

/**
 * The protocol engine under /oidc of the same Fastify server (decision 0400). Its requests are
 * handed over untouched (bodies unread: the engine parses its own), after the server's own
 * onRequest hooks (the Host check, metrics, request ids). The engine builds every URL it answers
 * with from APP_URL, whatever the request's Host or scheme (the Host check already refused
 * foreign names), and its pages get the product's security headers, with `form-action` left open
 * (a sign-out form's answer redirects to the app).
 */
export async function mountProvider(app: FastifyInstance, service: OidcService, appUrl: string): Promise<void> {
  const { host, protocol } = new URL(appUrl)
  const headers = Object.entries(SECURITY_HEADERS).map(([name, value]) =>
    name.toLowerCase() === 'content-security-policy' ? ([name, value.replace(/;?\s*form-action [^;]*/, '')] as const) : ([name, value] as const),
  )
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined))
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack()
      const raw = request.raw
      const original = raw.url ?? '/'
      ;(raw as typeof raw & { originalUrl?: string }).originalUrl = original
      raw.url = original.slice(OIDC_PATH.length) || '/'
      // The client address as the server's own trust-proxy setting found it (never a header the client chose).
      raw.headers['x-forwarded-for'] = request.ip
      raw.headers['x-forwarded-host'] = host
      raw.headers['x-forwarded-proto'] = protocol.replace(':', '')
      for (const [name, value] of headers) reply.raw.setHeader(name, value)
      reply.raw.setHeader('X-Request-Id', request.id)
      await service.callback()(raw, reply.raw)
    }
    scope.all(OIDC_PATH, handler)
    scope.all(`${OIDC_PATH}/*`, handler)
  })
}
