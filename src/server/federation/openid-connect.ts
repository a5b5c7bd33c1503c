import * as client from 'openid-client'
import { upstreamFetch } from './upstream-fetch'

/**
 * The one gate for what an OpenID Connect provider sends (decision 0511): `openid-client`, an
 * OpenID Certified relying party, does discovery, the authorization request with PKCE `S256`,
 * `state` and `nonce`, and at the callback checks the state, the RFC 9207 `iss` parameter (required
 * when the provider announces it), exchanges the code, and validates the ID token (signature,
 * issuer, audience, expiry, nonce) before UserInfo is read with the subject it must name. Nothing
 * of ours reads the provider's answer before it passed these checks.
 */

/** How long a provider's discovery document is kept before it is read again. */
const DISCOVERY_TTL_MS = 10 * 60 * 1000
/** Seconds the provider has to answer each request. */
const UPSTREAM_TIMEOUT_SECONDS = 10

export interface UpstreamClient {
  /** The provider's id in our database: the cache key, with everything that makes the configuration. */
  providerId: string
  issuer: string
  clientId: string
  clientSecret: string
}

/** What the sign-in learnt about the person, once every check passed. */
export interface VerifiedIdentity {
  subject: string
  email: string | null
  /** The provider says the address is verified (whether we trust it is the provider's `trustEmail`). */
  emailVerified: boolean
  name: string | null
  /** The claims a role rule may test: strings, numbers, booleans and lists of them. */
  claims: Record<string, string | number | boolean | (string | number | boolean)[]>
}

const cache = new Map<string, { config: client.Configuration; at: number }>()

const cacheKey = (upstream: UpstreamClient) => JSON.stringify([upstream.providerId, upstream.issuer, upstream.clientId, upstream.clientSecret])

/** Plain http is allowed only where the admin API allowed it: a loopback issuer (the schema refuses any other). */
function insecureAllowed(url: string): boolean {
  return new URL(url).protocol === 'http:'
}

/** Reads the provider's discovery document (or the cached one) and makes the client configuration. */
export async function upstreamConfiguration(upstream: UpstreamClient, now = Date.now()): Promise<client.Configuration> {
  const key = cacheKey(upstream)
  const cached = cache.get(key)
  if (cached && now - cached.at < DISCOVERY_TTL_MS) return cached.config
  const config = await client.discovery(new URL(upstream.issuer), upstream.clientId, undefined, client.ClientSecretBasic(upstream.clientSecret), {
    [client.customFetch]: upstreamFetch,
    timeout: UPSTREAM_TIMEOUT_SECONDS,
    ...(insecureAllowed(upstream.issuer) ? { execute: [client.allowInsecureRequests] } : {}),
  })
  config.timeout = UPSTREAM_TIMEOUT_SECONDS
  for (const [other, entry] of cache) if (now - entry.at >= DISCOVERY_TTL_MS) cache.delete(other)
  cache.set(key, { config, at: now })
  return config
}

/** Whether the issuer answers a discovery document that names it (the admin API's check). */
export async function issuerAnswers(issuer: string): Promise<boolean> {
  try {
    await client.discovery(new URL(issuer), 'discovery-check', undefined, client.None(), {
      [client.customFetch]: upstreamFetch,
      timeout: UPSTREAM_TIMEOUT_SECONDS,
      ...(insecureAllowed(issuer) ? { execute: [client.allowInsecureRequests] } : {}),
    })
    return true
  } catch {
    return false
  }
}

export interface AuthorizationRequest {
  state: string
  nonce: string
  codeVerifier: string
}

/** New random values for one authorization request (kept by the transaction, on the server). */
export function newAuthorizationRequest(): AuthorizationRequest {
  return { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() }
}

export async function authorizationUrl(
  config: client.Configuration,
  input: AuthorizationRequest & { redirectUri: string; scopes: readonly string[]; loginHint?: string | undefined },
): Promise<URL> {
  return client.buildAuthorizationUrl(config, {
    redirect_uri: input.redirectUri,
    response_type: 'code',
    scope: input.scopes.join(' '),
    state: input.state,
    nonce: input.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(input.codeVerifier),
    code_challenge_method: 'S256',
    ...(input.loginHint ? { login_hint: input.loginHint } : {}),
  })
}

/** Only claims a role rule can compare, bounded in number and size. */
export function ruleClaims(claims: Record<string, unknown>): VerifiedIdentity['claims'] {
  const out: VerifiedIdentity['claims'] = {}
  const scalar = (value: unknown): value is string | number | boolean =>
    (typeof value === 'string' && value.length <= 1000) || typeof value === 'number' || typeof value === 'boolean'
  for (const [name, value] of Object.entries(claims).slice(0, 100)) {
    if (name === '__proto__' || name.length > 200) continue
    if (scalar(value)) out[name] = value
    else if (Array.isArray(value)) out[name] = value.filter(scalar).slice(0, 500)
  }
  return out
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 && value.length <= 1000 ? value : null)

/**
 * The callback: every check of the protocol, then the person's claims: the ID token's, and
 * UserInfo's only when the ID token lacks one the sign-in reads (the address, whether it is
 * verified, the name, and every claim the provider's role rules test), as Google's and Entra ID's
 * ID tokens hold them all (decision 0565). The ID token's claims win over UserInfo's.
 * Throws on any failure; the caller turns that into the sign-in page's explanation.
 * `microsoft` keys people by tenant and object id, and never counts its `email` as verified.
 */
export async function checkCallback(
  config: client.Configuration,
  input: AuthorizationRequest & { callbackUrl: URL; redirectUri: string; kind: string; ruleClaims: readonly string[] },
): Promise<VerifiedIdentity> {
  const tokens = await client.authorizationCodeGrant(
    config,
    input.callbackUrl,
    { pkceCodeVerifier: input.codeVerifier, expectedState: input.state, expectedNonce: input.nonce, idTokenExpected: true },
    { redirect_uri: input.redirectUri },
  )
  const idClaims = tokens.claims()
  if (!idClaims) throw new Error('no ID token')
  const microsoft = input.kind === 'microsoft'
  let claims: Record<string, unknown> = { ...idClaims }
  const read = ['email', 'name', ...(microsoft ? [] : ['email_verified']), ...input.ruleClaims]
  if (config.serverMetadata().userinfo_endpoint && !read.every((claim) => claim in idClaims)) {
    const userInfo = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub)
    claims = { ...userInfo, ...idClaims }
  }
  const subject = microsoft ? microsoftSubject(claims) : idClaims.sub
  const email = text(claims.email)
  return {
    subject,
    email: email ? email.toLowerCase() : null,
    emailVerified: !microsoft && claims.email_verified === true,
    name: text(claims.name) ?? text([claims.given_name, claims.family_name].filter((part) => typeof part === 'string').join(' ')),
    claims: ruleClaims(claims),
  }
}

/** Microsoft's stable identity: the tenant and the object id, never the mutable `email` or `preferred_username`. */
function microsoftSubject(claims: Record<string, unknown>): string {
  const tid = text(claims.tid)
  const oid = text(claims.oid)
  if (!tid || !oid) throw new Error('the ID token has no tid and oid')
  return `${tid}/${oid}`
}
