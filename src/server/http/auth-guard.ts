import type { FastifyInstance, FastifyRequest } from 'fastify'
import { CSRF_HEADER } from '~shared/constants'
import { type Access, API_ACCESS, roleMayAccess } from '~shared/permissions'
import { scopeOf } from '~shared/scopes'
import { isApiKeyAttempt } from '~server/auth/api-keys'
import { type ActingApplication, bearerOf, findServiceCaller, insufficientScope, type ServiceCaller } from '~server/auth/service-credentials'
import { type AuthState, checkSession } from '~server/auth/session-check'
import type { AppContext } from '~server/context'
import { forbidden, unauthorized } from './errors'

/**
 * Every /api route is private unless the shared permission table names it public, and a route
 * missing from the table cannot even be registered. A private route runs only after the session
 * check (`auth/session-check.ts`), the CSRF token on writes, and the caller's role.
 *
 * A bearer that is not a person's access token may be a service application's credential (an API
 * key or a client-credentials token, contract section 11): it passes only on a call that the
 * scope table (src/shared/scopes.ts) gives one of its scopes, without a CSRF header (no browser
 * session carries it, so none can be forged), and a call no scope of it allows is a 403
 * `INSUFFICIENT_SCOPE`. A person's token passes by role only: it never gains a scope.
 */

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthState | null
    /** The service application calling, when the bearer is its credential. */
    service: ServiceCaller | null
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** "GET /admin/users/:id": a route as the permission and scope tables name it. */
export function endpointKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url.replace(/^\/api/, '')}`
}

export function accessOf(method: string, url: string): Access | undefined {
  return (API_ACCESS as Record<string, Access>)[endpointKey(method, url)]
}

export function registerAuthGuard(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('auth', null)
  app.decorateRequest('service', null)

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
    const bearer = bearerOf(request.headers.authorization)
    if (bearer && (isApiKeyAttempt(bearer) || !ctx.accessTokens.verify(bearer))) {
      const service = await findServiceCaller(ctx, bearer)
      if (service) {
        const scope = scopeOf(endpointKey(request.method, url)) ?? null
        if (!scope || !service.scopes.includes(scope)) throw insufficientScope(scope)
        request.service = service
        return
      }
      if (isApiKeyAttempt(bearer)) throw unauthorized('Invalid, expired or revoked credential', 'CREDENTIAL_INVALID')
    }
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

/**
 * Who makes a call that a person or a service application may make (the scoped admin calls): the
 * admin's id, or the application (`actorId` null), as the use cases' actions take them.
 */
export function requireActor(request: FastifyRequest): { actorId: string | null; application?: ActingApplication } {
  if (request.service) return { actorId: null, application: request.service.application }
  return { actorId: requireAuth(request).user.id }
}

/** The signed-in state of a request on a route the guard has checked. */
export function requireAuth(request: FastifyRequest): AuthState {
  if (!request.auth) throw unauthorized()
  return request.auth
}
