import crypto from 'node:crypto'
import { type ApiScope, isApiScope } from '~shared/scopes'
import type { AppContext } from '~server/context'
import { forbidden, type HttpError, unauthorized } from '~server/http/errors'
import { apiResource } from '~server/oidc/paths'
import { apiCallsByCredential } from '~server/rate-limit/rules'
import { hashApiKey, isApiKeyAttempt, looksLikeApiKey } from './api-keys'

/**
 * The check of a service application's credential (contract section 11, decision 0501): an API key
 * (`acc_sk_…`) or an access token from the client credentials grant, sent as
 * `Authorization: Bearer …`. Both are looked up in the database on every call, so that disabling
 * or deleting the application, deleting or expiring the key, or removing a scope holds at the next
 * request. The scopes a call may use are those of the credential that the application still holds.
 *
 * Every caller of the admin API with a machine credential goes through `checkServiceCredential`:
 * the API guard (http/auth-guard.ts) and the SCIM service.
 */
/** A service application acting through the admin API, as the entries it writes name it. */
export interface ActingApplication {
  id: string
  name: string
}

export interface ServiceCaller {
  application: ActingApplication
  /** The scopes this credential may use now. */
  scopes: ApiScope[]
  credential: { type: 'api-key' | 'access-token'; id: string }
}

/** A key's recorded last use is written again once it is this old (ms). */
export const API_KEY_LAST_USE_PRECISION_MS = 60_000

const invalidCredential = () => unauthorized('Invalid, expired or revoked credential', 'CREDENTIAL_INVALID')
export const insufficientScope = (scope: ApiScope | null): HttpError =>
  forbidden(scope ? `This credential does not have the ${scope} scope` : 'No scope allows this call with a service credential', 'INSUFFICIENT_SCOPE')

/** The bearer value of an Authorization header, or null. */
export function bearerOf(authorization: string | undefined): string | null {
  return typeof authorization === 'string' && /^Bearer [^\s]+$/i.test(authorization) ? authorization.slice(7) : null
}

/**
 * The service application behind the Authorization header, when its credential is live and holds
 * `requiredScope`. Throws 401 (`AUTH_REQUIRED`, `CREDENTIAL_INVALID`) for a missing or dead
 * credential, 429 with Retry-After past API_RATE_LIMIT calls a minute of a live one, 403
 * `INSUFFICIENT_SCOPE` for a live one without the scope (`null`: a call no scope allows).
 */
export async function checkServiceCredential(ctx: AppContext, authorization: string | undefined, requiredScope: ApiScope | null): Promise<ServiceCaller> {
  const bearer = bearerOf(authorization)
  if (!bearer) throw unauthorized('Authentication required', 'AUTH_REQUIRED')
  const caller = await findServiceCaller(ctx, bearer)
  if (!caller) throw invalidCredential()
  if (!requiredScope || !caller.scopes.includes(requiredScope)) throw insufficientScope(requiredScope)
  return caller
}

/** The live service application behind a bearer value (an API key or an access token), or undefined. */
export async function findServiceCaller(ctx: AppContext, bearer: string): Promise<ServiceCaller | undefined> {
  // A key whose checksum fails is refused before any lookup.
  if (isApiKeyAttempt(bearer) && !looksLikeApiKey(bearer)) return undefined
  const caller = isApiKeyAttempt(bearer) ? await apiKeyCaller(ctx, bearer) : await accessTokenCaller(ctx, bearer)
  if (caller) {
    const counted = caller.credential.type === 'api-key' ? `key:${caller.credential.id}` : `app:${caller.application.id}`
    await ctx.limiter.consume(apiCallsByCredential(ctx.config.apiRateLimit), counted)
  }
  return caller
}

async function apiKeyCaller(ctx: AppContext, secret: string): Promise<ServiceCaller | undefined> {
  const hash = hashApiKey(secret)
  const row = await ctx.db
    .selectFrom('api_keys as k')
    .innerJoin('oidc_applications as a', 'a.id', 'k.application_id')
    .select(['k.id', 'k.secret_hash', 'k.expires_at', 'k.last_used_at', 'a.id as app_id', 'a.name as app_name', 'a.type', 'a.enabled', 'a.scopes'])
    .where('k.secret_hash', '=', hash)
    .executeTakeFirst()
  // Looked up by its hash (an index), then compared in constant time all the same.
  if (!row || row.secret_hash.length !== hash.length || !crypto.timingSafeEqual(row.secret_hash, hash)) return undefined
  const now = ctx.clock()
  if (row.type !== 'service' || !row.enabled || (row.expires_at && row.expires_at <= now)) return undefined
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= API_KEY_LAST_USE_PRECISION_MS) {
    await ctx.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute()
  }
  return {
    application: { id: row.app_id, name: row.app_name },
    scopes: row.scopes.filter(isApiScope),
    credential: { type: 'api-key', id: row.id },
  }
}

/** An opaque access token of the client credentials grant for the resource `APP_URL/api`. */
async function accessTokenCaller(ctx: AppContext, token: string): Promise<ServiceCaller | undefined> {
  if (token.length > 256) return undefined
  const row = await ctx.db
    .selectFrom('oidc_payloads as t')
    .innerJoin('oidc_applications as a', 'a.id', 't.client_id')
    .select(['t.payload', 't.expires_at', 'a.id as app_id', 'a.name as app_name', 'a.type', 'a.enabled', 'a.scopes'])
    .where('t.model', '=', 'ClientCredentials')
    .where('t.id', '=', token)
    .executeTakeFirst()
  if (!row || row.type !== 'service' || !row.enabled) return undefined
  // The protocol engine times its tokens by the system's clock (oidc/provider.ts): so is their expiry here.
  const now = new Date()
  const payload = row.payload as { aud?: unknown; scope?: unknown; exp?: unknown }
  if (!row.expires_at || row.expires_at <= now) return undefined
  if (typeof payload.exp === 'number' && payload.exp * 1000 <= now.getTime()) return undefined
  if (!audienceIncludes(payload.aud, apiResource(ctx.config.appUrl))) return undefined
  const granted = typeof payload.scope === 'string' ? payload.scope.split(' ') : []
  return {
    application: { id: row.app_id, name: row.app_name },
    scopes: row.scopes.filter((scope) => isApiScope(scope) && granted.includes(scope)) as ApiScope[],
    credential: { type: 'access-token', id: token.slice(0, 8) },
  }
}

function audienceIncludes(aud: unknown, resource: string): boolean {
  return aud === resource || (Array.isArray(aud) && aud.includes(resource))
}
