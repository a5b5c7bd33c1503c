import crypto from 'node:crypto'
import type { FastifyRequest } from 'fastify'

/**
 * Who may read GET /metrics: a scraper on this machine, or one holding METRICS_TOKEN.
 *
 * "On this machine" means the socket's peer is a loopback address and nothing forwarded the
 * request: a reverse proxy on the same host connects from loopback too, and whatever it relays
 * from the internet would otherwise pass as local. Proxies mark what they relay with one of these
 * headers, and a request carrying any of them needs the token (docs/deploying.md).
 */
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false
  return address === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address)
}

export function isDirectLoopbackRequest(request: FastifyRequest): boolean {
  if (FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined)) return false
  return isLoopbackAddress(request.socket.remoteAddress)
}

/** The bearer token matches, compared in constant time (digests of equal length, whatever was sent). */
export function bearerMatches(authorization: string | undefined, token: string | undefined): boolean {
  if (!token || typeof authorization !== 'string') return false
  const match = /^Bearer ([^\s]+)$/i.exec(authorization)
  if (!match) return false
  const digest = (value: string) => crypto.createHash('sha256').update(value).digest()
  return crypto.timingSafeEqual(digest(match[1]!), digest(token))
}

export function mayReadMetrics(request: FastifyRequest, token: string | undefined): boolean {
  return isDirectLoopbackRequest(request) || bearerMatches(request.headers.authorization, token)
}
