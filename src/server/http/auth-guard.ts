import type { FastifyInstance, FastifyRequest } from 'fastify'
import { CSRF_HEADER } from '~shared/constants'
import { API_ACCESS, type Access, roleMayAccess } from '~shared/permissions'
import type { AppContext } from '~server/context'
import { type UserRecord, isUuid, userColumns } from '~server/data/users'
import { executePrepared } from '~server/db/prepared'
import { type HttpError, forbidden, unauthorized } from './errors'

/**
 * Every /api route is private unless the shared permission table names it public, and a route
 * missing from the table cannot even be registered. A signed-in request is checked on every
 * call against the database: the session must be live and the account ACTIVE and verified, so
 * logout, revocation and status changes take effect on the very next request.
 */

export interface AuthState {
  user: UserRecord
  sessionId: string
}

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
    const auth = await authenticate(ctx, request)
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

async function authenticate(ctx: AppContext, request: FastifyRequest): Promise<AuthState> {
  const header = request.headers.authorization
  const token = typeof header === 'string' && /^Bearer [^\s]+$/i.test(header) ? header.slice(7) : null
  if (!token) throw unauthorized('Authentication required', 'AUTH_REQUIRED')
  const claims = await ctx.accessTokens.verify(token)
  if (!claims || !isUuid(claims.sessionId) || !isUuid(claims.userId)) {
    throw unauthorized('Invalid or expired access token', 'TOKEN_INVALID')
  }
  const liveSessionUser = ctx.db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(userColumns.map((column) => `u.${column}` as const))
    .where('s.id', '=', claims.sessionId)
    .where('s.user_id', '=', claims.userId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', ctx.clock())
  const user = (await executePrepared(ctx.db, liveSessionUser.compile())).rows[0]
  if (!user) throw unauthorized('Your session has ended. Please sign in again.', 'SESSION_ENDED')
  const refusal = accountRefusal(user)
  if (refusal) throw refusal
  return { user, sessionId: claims.sessionId }
}

/** Why an account may not sign in or pass a signed-in call: only ACTIVE, verified accounts may. */
export function accountRefusal(user: Pick<UserRecord, 'status' | 'email_verified_at'>): HttpError | undefined {
  if (user.status === 'SUSPENDED') return forbidden('Account is suspended', 'ACCOUNT_SUSPENDED')
  if (user.status === 'INACTIVE') return forbidden('Account is inactive', 'ACCOUNT_INACTIVE')
  if (!user.email_verified_at) return forbidden('Email not verified', 'EMAIL_NOT_VERIFIED')
  return undefined
}

/** The signed-in state of a request on a route the guard has checked. */
export function requireAuth(request: FastifyRequest): AuthState {
  if (!request.auth) throw unauthorized()
  return request.auth
}
