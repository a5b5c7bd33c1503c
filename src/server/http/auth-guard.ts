import type { FastifyInstance, FastifyRequest } from 'fastify'
import { CSRF_HEADER } from '~shared/constants'
import { type Access, API_ACCESS, roleMayAccess } from '~shared/permissions'
import { type AuthState, checkSession } from '~server/auth/session-check'
import type { AppContext } from '~server/context'
import { forbidden, unauthorized } from './errors'

/**
 * Every /api route is private unless the shared permission table names it public, and a route
 * missing from the table cannot even be registered. A private route runs only after the session
 * check (`auth/session-check.ts`), the CSRF token on writes, and the caller's role.
 */

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthState | null
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export function accessOf(method: string, url: string): Access | undefined {
  const key = `${method === 'HEAD' ? 'GET' : method} ${url.replace(/^\/api/, '')}`
  return (API_ACCESS as Record<string, Access>)[key]
}

export function registerAuthGuard(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('auth', null)

  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD' && accessOf(method, route.url) === undefined) {
        throw new Error(`${method} ${route.url} is not in the permission table (src/shared/permissions.ts)`)
      }
    }
  })

  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url
    if (!url?.startsWith('/api/')) return
    const access = accessOf(request.method, url)
    if (access === undefined) throw forbidden()
    if (access === 'public') return
    const auth = await checkSession(ctx, request.headers.authorization)
    if (UNSAFE_METHODS.has(request.method) && !ctx.csrf.matches(auth.sessionId, csrfHeader(request))) {
      throw forbidden('Invalid or missing CSRF token', 'CSRF_INVALID')
    }
    if (!roleMayAccess(access, auth.user.role)) throw forbidden()
    request.auth = auth
  })
}

function csrfHeader(request: FastifyRequest): string | undefined {
  const value = request.headers[CSRF_HEADER.toLowerCase()]
  return typeof value === 'string' ? value : undefined
}

/** The signed-in state of a request on a route the guard has checked. */
export function requireAuth(request: FastifyRequest): AuthState {
  if (!request.auth) throw unauthorized()
  return request.auth
}
