import crypto from 'node:crypto'
import type { CompiledQuery } from 'kysely'
import type { AdapterPayload } from 'oidc-provider'
import type { Role } from '~shared/constants'
import { compiledOnce, runNamedStatement } from '~server/db/prepared'
import type { Db } from '~server/db/types'
import { type ApplicationRow, engineRequest } from './engine-request'

/**
 * The admins' applications as the protocol engine sees its clients. Only enabled applications are
 * clients; a disabled or deleted one is unknown to the engine from the next request on.
 *
 * A confidential application's secret is kept as its SHA-256 (256 random bits, so a plain hash is
 * enough, as for recovery codes: decision 0316); the engine's own comparison is replaced by
 * `secretMatches`, which hashes what the app sent (provider.ts).
 */

/** Our own client metadata, beside the standard fields. */
export const ALLOWED_ROLES_METADATA = 'accounts_allowed_roles'
export const FIRST_PARTY_METADATA = 'accounts_first_party'

export async function applicationClientMetadata(db: Db, id: string): Promise<AdapterPayload | undefined> {
  const readAhead = engineRequest.getStore()?.applications
  if (readAhead?.has(id)) return clientMetadataOf(readAhead.get(id))
  applicationQuery ??= compiledOnce((id: string) => db.selectFrom('oidc_applications').selectAll().where('id', '=', id).where('enabled', '=', true))
  return clientMetadataOf((await runNamedStatement(db, applicationQuery(id))).rows[0])
}

/** Built once (src/server/db/prepared.ts), with the first database given: the statement is the same for every one. */
let applicationQuery: ((id: string) => CompiledQuery<ApplicationRow>) | undefined

/** The scopes an application that signs people in may ask for: never an admin API scope. */
/** The device authorization grant's type (RFC 8628). */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code'

export const PERSON_SCOPES = 'openid profile email phone roles offline_access'

/** An enabled application's row as client metadata (a disabled one is no client). */
function clientMetadataOf(app: ApplicationRow | undefined): AdapterPayload | undefined {
  if (!app?.enabled) return undefined
  if (app.type === 'service') return serviceClientMetadata(app)
  const confidential = app.type === 'confidential' && app.secret_hash !== null
  // Device sign-in (RFC 8628) beside the code flow; an application with it alone has no redirect URIs.
  const signsInByCode = app.redirect_uris.length > 0
  const grantTypes = [...(signsInByCode ? ['authorization_code'] : []), 'refresh_token', ...(app.device_flow ? [DEVICE_CODE_GRANT] : [])]
  return {
    client_id: app.id,
    client_name: app.name,
    ...(confidential ? { client_secret: app.secret_hash!.toString('hex'), token_endpoint_auth_method: 'client_secret_basic' } : { token_endpoint_auth_method: 'none' }),
    application_type: 'web',
    grant_types: grantTypes,
    response_types: signsInByCode ? ['code'] : [],
    redirect_uris: app.redirect_uris,
    post_logout_redirect_uris: app.post_logout_redirect_uris,
    ...(app.backchannel_logout_uri ? { backchannel_logout_uri: app.backchannel_logout_uri, backchannel_logout_session_required: true } : {}),
    id_token_signed_response_alg: 'RS256',
    scope: PERSON_SCOPES,
    [ALLOWED_ROLES_METADATA]: app.allowed_roles,
    [FIRST_PARTY_METADATA]: app.first_party,
  } as AdapterPayload
}

/**
 * A service application (contract section 11): the client credentials grant only, with its client
 * secret or, with a public key set, `private_key_jwt`; the scopes it may ask for are its admin API
 * scopes (the engine answers `invalid_scope` for any other it knows).
 */
function serviceClientMetadata(app: ApplicationRow): AdapterPayload {
  return {
    client_id: app.id,
    client_name: app.name,
    ...(app.jwks
      ? { jwks: app.jwks, token_endpoint_auth_method: 'private_key_jwt' }
      : { client_secret: app.secret_hash!.toString('hex'), token_endpoint_auth_method: 'client_secret_basic' }),
    application_type: 'web',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: app.scopes.join(' '),
    [SERVICE_SCOPES_METADATA]: app.scopes,
  } as AdapterPayload
}

export const SERVICE_SCOPES_METADATA = 'accounts_service_scopes'

/** A service application's granted scopes (empty for any other client). */
export function serviceScopesOf(client: EngineClient): readonly string[] {
  const scopes = property(client, SERVICE_SCOPES_METADATA)
  return Array.isArray(scopes) ? (scopes as string[]) : []
}

/** Whether the secret an app sent is its current one (constant time). */
export function secretMatches(storedHashHex: string | undefined, sent: unknown): boolean {
  if (typeof storedHashHex !== 'string' || typeof sent !== 'string' || sent.length === 0 || sent.length > 512) return false
  const stored = Buffer.from(storedHashHex, 'hex')
  const actual = crypto.createHash('sha256').update(sent, 'utf8').digest()
  return stored.length === actual.length && crypto.timingSafeEqual(stored, actual)
}

/**
 * The engine keeps our own metadata fields on its client under their own names; read there, not
 * through `metadata()`, which builds the whole metadata object again on every call (it was 2% of
 * a UserInfo's CPU).
 */
type EngineClient = object | undefined
const property = (client: EngineClient, name: string): unknown => (client ? (client as Record<string, unknown>)[name] : undefined)

/** The roles an application admits (empty: every role), from its client metadata. */
export function allowedRolesOf(client: EngineClient): readonly Role[] {
  const roles = property(client, ALLOWED_ROLES_METADATA)
  return Array.isArray(roles) ? (roles as Role[]) : []
}

export function isFirstParty(client: EngineClient): boolean {
  return property(client, FIRST_PARTY_METADATA) === true
}

export function roleAllowed(client: EngineClient, role: Role): boolean {
  const roles = allowedRolesOf(client)
  return roles.length === 0 || roles.includes(role)
}
