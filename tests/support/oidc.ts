import crypto from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { createRemoteJWKSet, customFetch, jwtVerify, type JWTPayload } from 'jose'
import * as client from 'openid-client'
import type { Role } from '~shared/constants'
import type { AppContext } from '~server/context'
import type { TestApp } from './test-app'

/**
 * Sign in with Accounts, from an app's side, for tests: `openid-client` (an OpenID Certified relying
 * party) talking to the real server, and a small browser (a cookie jar that follows redirects)
 * that goes through the sign-in and consent steps the way the web app does.
 *
 * Everything goes through `app.inject` with the Host of APP_URL, so no port is needed; only the
 * back-channel logout receiver is a real HTTP server, because the provider calls it.
 */

/** Sends openid-client's requests (and the JWKS fetch of `jose`) to the test app. */
export function injectFetch(app: FastifyInstance): (...args: any[]) => Promise<Response> {
  return async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init as RequestInit)
    const url = new URL(request.url)
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined
    const headers: Record<string, string> = {}
    request.headers.forEach((value, name) => {
      headers[name] = value
    })
    headers.host = url.host
    const response = await app.inject({ method: request.method as 'GET', url: url.pathname + url.search, headers, ...(body ? { payload: body } : {}) })
    const out = new Headers()
    for (const [name, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) for (const item of value) out.append(name, String(item))
      else if (value !== undefined) out.set(name, String(value))
    }
    const empty = response.statusCode === 204 || response.statusCode === 304
    return new Response(empty ? null : new Uint8Array(response.rawPayload), { status: response.statusCode, headers: out })
  }
}

export interface TestApplication {
  id: string
  secret: string | null
  name: string
  redirectUri: string
}

/** Registers an application straight in the database (the admin API has its own tests). */
export async function registerApplication(
  ctx: AppContext,
  input: {
    name?: string
    type?: 'confidential' | 'public'
    firstParty?: boolean
    allowedRoles?: Role[]
    redirectUris?: string[]
    postLogoutRedirectUris?: string[]
    backchannelLogoutUri?: string | null
  } = {},
): Promise<TestApplication> {
  const id = `app_${crypto.randomBytes(12).toString('base64url')}`
  const type = input.type ?? 'confidential'
  const secret = type === 'confidential' ? crypto.randomBytes(32).toString('base64url') : null
  const redirectUris = input.redirectUris ?? ['http://127.0.0.1:4000/callback']
  const now = new Date()
  await ctx.db
    .insertInto('oidc_applications')
    .values({
      id,
      name: input.name ?? 'Team Wiki',
      type,
      secret_hash: secret ? crypto.createHash('sha256').update(secret).digest() : null,
      redirect_uris: redirectUris,
      post_logout_redirect_uris: input.postLogoutRedirectUris ?? ['http://127.0.0.1:4000/signed-out'],
      backchannel_logout_uri: input.backchannelLogoutUri ?? null,
      allowed_roles: input.allowedRoles ?? [],
      first_party: input.firstParty ?? false,
      created_at: now,
      updated_at: now,
    })
    .execute()
  return { id, secret, name: input.name ?? 'Team Wiki', redirectUri: redirectUris[0]! }
}

/** openid-client's view of the provider, as that application. */
export async function relyingParty(test: TestApp, application: TestApplication): Promise<client.Configuration> {
  const issuer = new URL(`${test.config.appUrl}/oidc`)
  const auth = application.secret ? client.ClientSecretBasic(application.secret) : client.None()
  const config = await client.discovery(issuer, application.id, application.secret ? { client_secret: application.secret } : {}, auth, {
    execute: [client.allowInsecureRequests],
    [client.customFetch]: injectFetch(test.app),
  })
  config[client.customFetch] = injectFetch(test.app)
  return config
}

interface StoredCookie {
  name: string
  value: string
  path: string
}

/** A browser: cookies by path, redirects followed by hand so each stop can be looked at. */
export class TestBrowser {
  private cookies: StoredCookie[] = []

  constructor(private readonly test: TestApp) {}

  private cookieHeader(path: string): string | undefined {
    const matching = this.cookies.filter(
      (cookie) => path === cookie.path || path.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`) || cookie.path === '/',
    )
    return matching.length > 0 ? matching.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ') : undefined
  }

  private keep(setCookie: string | string[] | undefined): void {
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim())
      const [name, ...rest] = pair!.split('=')
      const value = rest.join('=')
      const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/'
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now()))
      this.cookies = this.cookies.filter((cookie) => !(cookie.name === name && cookie.path === path))
      if (!expired && value) this.cookies.push({ name: name!, value, path })
    }
  }

  /** Names of the cookies the browser holds. */
  cookieNames(): string[] {
    return this.cookies.map((cookie) => cookie.name)
  }

  /** Forgets the provider's cookies (a new browser profile keeps none). */
  clear(): void {
    this.cookies = []
  }

  async request(method: string, url: string, options: { token?: string; csrf?: string; body?: unknown; form?: Record<string, string> } = {}) {
    const target = new URL(url, this.test.config.appUrl)
    // A browser's navigation asks for a page first.
    const headers: Record<string, string> = { host: target.host, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }
    const cookie = this.cookieHeader(target.pathname)
    if (cookie) headers.cookie = cookie
    if (options.token) headers.authorization = `Bearer ${options.token}`
    if (options.csrf) headers['x-csrf-token'] = options.csrf
    let payload: string | undefined
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json'
      payload = JSON.stringify(options.body)
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      payload = new URLSearchParams(options.form).toString()
    }
    const response = await this.test.app.inject({ method: method as 'GET', url: target.pathname + target.search, headers, ...(payload !== undefined ? { payload } : {}) })
    this.keep(response.headers['set-cookie'])
    return response
  }

  /**
   * Follows redirects from `url` until one leaves the server (the app's redirect URI) or lands on
   * a page of the web app (/login, /consent); returns that address.
   */
  async follow(url: string, limit = 10): Promise<URL> {
    let current = new URL(url, this.test.config.appUrl)
    for (let i = 0; i < limit; i++) {
      if (current.origin !== new URL(this.test.config.appUrl).origin) return current
      if (!current.pathname.startsWith('/oidc') && !current.pathname.startsWith('/api/oidc')) return current
      const response = await this.request('GET', current.toString())
      if (response.statusCode < 300 || response.statusCode >= 400) {
        throw new Error(`expected a redirect from ${current.pathname}, got ${response.statusCode}: ${response.body.slice(0, 300)}`)
      }
      current = new URL(String(response.headers.location), current)
    }
    throw new Error('too many redirects')
  }
}

export interface SignedInPerson {
  accessToken: string
  csrfToken: string
}

/** What the web app does on /login?interaction= and /consent?interaction=, as calls. */
export async function continueAsSignedIn(
  browser: TestBrowser,
  page: URL,
  person: SignedInPerson,
  options: { consent?: 'allow' | 'deny'; steps?: string[] } = {},
): Promise<URL> {
  let at = page
  for (let i = 0; i < 5; i++) {
    const uid = at.searchParams.get('interaction')
    if (!uid || (at.pathname !== '/login' && at.pathname !== '/consent')) return at
    const step = at.pathname === '/login' ? 'login' : options.consent === 'deny' ? 'abort' : 'consent'
    options.steps?.push(step)
    const response = await browser.request('POST', `/api/oidc/interactions/${uid}/${step}`, { token: person.accessToken, csrf: person.csrfToken, body: {} })
    if (response.statusCode !== 200) throw new Error(`${step} step answered ${response.statusCode}: ${response.body}`)
    at = await browser.follow(response.json().data.redirectTo)
  }
  return at
}

/** Starts an authorization request as the app would (PKCE S256, state, nonce). */
export async function startAuthorization(config: client.Configuration, application: TestApplication, params: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier()
  const state = client.randomState()
  const nonce = client.randomNonce()
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: application.redirectUri,
    scope: 'openid profile email',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...params,
  })
  return { url, verifier, state, nonce }
}

/** The code exchange of an authorization response, checked by openid-client (ID token against the JWKS). */
export function exchangeCode(config: client.Configuration, callback: URL, started: { verifier: string; state: string; nonce: string }) {
  return client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce })
}

export interface ReceivedLogout {
  token: string
  claims: JWTPayload
}

/** An app's back-channel logout endpoint: a real HTTP server that verifies each logout_token it receives. */
export async function startLogoutReceiver(test: TestApp, options: { failFirst?: number } = {}) {
  const received: ReceivedLogout[] = []
  let failures = options.failFirst ?? 0
  const jwks = createRemoteJWKSet(new URL(`${test.config.appUrl}/oidc/jwks`), { [customFetch]: injectFetch(test.app) as never })
  const pending: Promise<void>[] = []
  const server = http.createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      if (failures > 0) {
        failures -= 1
        response.writeHead(503).end()
        return
      }
      const token = new URLSearchParams(body).get('logout_token') ?? ''
      pending.push(
        jwtVerify(token, jwks, { issuer: `${test.config.appUrl}/oidc`, typ: 'logout+jwt' }).then(
          ({ payload }) => {
            received.push({ token, claims: payload })
            response.writeHead(200).end()
          },
          () => {
            response.writeHead(400).end()
          },
        ),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    uri: `http://127.0.0.1:${port}/backchannel-logout`,
    received,
    async settled() {
      await Promise.all(pending)
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The protocol error code of an openid-client failure (a body error, or a 401's WWW-Authenticate challenge). */
export async function protocolError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    const failure = error as { error?: string; cause?: { parameters?: { error?: string } }[] | { error?: string } }
    if (typeof failure.error === 'string') return failure.error
    if (Array.isArray(failure.cause)) return failure.cause[0]?.parameters?.error ?? 'unknown'
    return (failure.cause as { error?: string } | undefined)?.error ?? (error instanceof Error ? error.message : 'unknown')
  }
  throw new Error('expected a protocol error, got a success')
}
