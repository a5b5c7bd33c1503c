import type { FastifyReply, FastifyRequest } from 'fastify'
import { type CookieJar, DEVICE_COOKIE } from '~server/auth/device-tokens'

/** The named cookie of a request, and its reply's way to replace it (@fastify/cookie, registered in `app.ts`). */
export function cookieJar(request: FastifyRequest, reply: FastifyReply, name: string): CookieJar {
  return {
    value: request.cookies[name],
    set: (value, attributes) => void reply.setCookie(name, value, attributes),
  }
}

/** The browser's device cookie, which sign-in and the password reset read and renew (decision 0301). */
export const deviceCookie = (request: FastifyRequest, reply: FastifyReply): CookieJar => cookieJar(request, reply, DEVICE_COOKIE)
