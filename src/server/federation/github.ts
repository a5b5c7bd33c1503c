import * as client from 'openid-client'
import { ruleClaims, type AuthorizationRequest, type VerifiedIdentity } from './openid-connect'
import { upstreamFetch } from './upstream-fetch'

/**
 * GitHub: OAuth 2.0 (no OpenID Connect, no ID token) through `openid-client`, then its REST API.
 * The person is GitHub's numeric user id; the address is the primary one GitHub says is verified
 * (`/user/emails`), never `/user`'s public `email`. `baseUrl` is github.com, or a GitHub Enterprise
 * Server, whose API is under `/api/v3`.
 */

const TIMEOUT_SECONDS = 10
const MAX_EMAILS = 100

export function githubApiBase(baseUrl: string): string {
  return new URL(baseUrl).hostname === 'github.com' ? 'https://api.github.com' : `${baseUrl}/api/v3`
}

/** The client configuration for a GitHub (no discovery: GitHub publishes none). */
export function githubConfiguration(input: { baseUrl: string; clientId: string; clientSecret: string }): client.Configuration {
  const config = new client.Configuration(
    { issuer: input.baseUrl, authorization_endpoint: `${input.baseUrl}/login/oauth/authorize`, token_endpoint: `${input.baseUrl}/login/oauth/access_token` },
    input.clientId,
    undefined,
    client.ClientSecretPost(input.clientSecret),
  )
  config.timeout = TIMEOUT_SECONDS
  config[client.customFetch] = upstreamFetch
  // Plain http only where the admin API allowed it: a loopback base URL.
  if (new URL(input.baseUrl).protocol === 'http:') client.allowInsecureRequests(config)
  return config
}

export async function githubAuthorizationUrl(
  config: client.Configuration,
  input: AuthorizationRequest & { redirectUri: string; scopes: readonly string[]; loginHint?: string | undefined },
): Promise<URL> {
  return client.buildAuthorizationUrl(config, {
    redirect_uri: input.redirectUri,
    scope: input.scopes.join(' '),
    state: input.state,
    code_challenge: await client.calculatePKCECodeChallenge(input.codeVerifier),
    code_challenge_method: 'S256',
    ...(input.loginHint ? { login: input.loginHint } : {}),
  })
}

async function getJson(config: client.Configuration, accessToken: string, url: string): Promise<unknown> {
  const response = await client.fetchProtectedResource(config, accessToken, new URL(url), 'GET', null, new Headers({ accept: 'application/vnd.github+json' }))
  if (!response.ok) throw new Error(`GitHub answered ${response.status} for ${new URL(url).pathname}`)
  return response.json()
}

/** The callback: state and the code exchange (PKCE), then `/user` and `/user/emails`. */
export async function checkGithubCallback(
  config: client.Configuration,
  input: AuthorizationRequest & { callbackUrl: URL; redirectUri: string; baseUrl: string },
): Promise<VerifiedIdentity> {
  const tokens = await client.authorizationCodeGrant(
    config,
    input.callbackUrl,
    { pkceCodeVerifier: input.codeVerifier, expectedState: input.state, idTokenExpected: false },
    { redirect_uri: input.redirectUri },
  )
  const api = githubApiBase(input.baseUrl)
  const user = (await getJson(config, tokens.access_token, `${api}/user`)) as Record<string, unknown>
  if (typeof user.id !== 'number' || !Number.isSafeInteger(user.id)) throw new Error('GitHub gave no user id')
  const emails = await getJson(config, tokens.access_token, `${api}/user/emails`)
  const primary = Array.isArray(emails)
    ? (emails.slice(0, MAX_EMAILS) as Record<string, unknown>[]).find((item) => item.primary === true && item.verified === true && typeof item.email === 'string')
    : undefined
  const name = typeof user.name === 'string' && user.name.length > 0 ? user.name : typeof user.login === 'string' ? user.login : null
  return {
    subject: String(user.id),
    email: primary ? (primary.email as string).toLowerCase() : null,
    emailVerified: primary !== undefined,
    name: name && name.length <= 1000 ? name : null,
    claims: ruleClaims({ login: user.login, id: user.id, company: user.company }),
  }
}
