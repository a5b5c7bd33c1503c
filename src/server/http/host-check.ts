import type { FastifyInstance } from 'fastify'
import { LOOPBACK_HOSTNAMES } from '~shared/loopback'
import { misdirectedRequest } from './errors'

/**
 * DNS rebinding defence (decision 0305). A page on any site can make its own
 * name resolve to 127.0.0.1 and then read this server's answers as same-origin: the outbox, the
 * API, everything. What such a page cannot change is the `Host` its browser sends, which stays the
 * page's own name. So every request whose Host names neither APP_URL's host nor a loopback name is
 * refused with 421 before any route, static file or not-found handler runs. ALLOWED_HOSTS adds
 * names for machines that reach an instance directly (a scraper or a probe using its address).
 *
 * Behind a proxy named in TRUST_PROXY, the host the proxy forwards (`X-Forwarded-Host`) is the one
 * the browser asked for, and is the one checked (Fastify's `request.host`).
 */
/** The host name of a Host header value, lower case, IPv6 in brackets; null when it is not one. */
export function hostNameOf(host: string): string | null {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/i.exec(host)
  if (!match) return null
  return match[1]!.toLowerCase()
}

export function allowedHostNames(appUrl: string, extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([new URL(appUrl).hostname.toLowerCase(), ...LOOPBACK_HOSTNAMES, ...extra.map((name) => name.toLowerCase())])
}

export function registerHostCheck(app: FastifyInstance, appUrl: string, extra: readonly string[] = []): void {
  const allowed = allowedHostNames(appUrl, extra)
  app.addHook('onRequest', (request, reply, done) => {
    const name = hostNameOf(request.host)
    if (name !== null && allowed.has(name)) return done()
    // Not cached anywhere: the same address may be served under the right name a moment later.
    void reply.header('Cache-Control', 'no-store')
    done(misdirectedRequest())
  })
}
