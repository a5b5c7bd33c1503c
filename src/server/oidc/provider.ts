import { AsyncLocalStorage } from 'node:async_hooks'
import type { Kysely } from 'kysely'
import Provider, { type Configuration, errors, interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider'
import type { Clock } from '~server/clock'
import type { Database } from '~server/db/types'
import { HttpError } from '~server/http/errors'
import type { RateLimiter } from '~server/rate-limit/rate-limiter'
import { RULES } from '~server/rate-limit/rules'
import { accountMayUseApp, loadAccount } from './accounts'
import { createAdapterClass, endLinkedProductSession } from './adapter'
import { flushDeferredWrites } from './engine-request'
import { isFirstParty, SERVICE_SCOPES_METADATA, secretMatches, serviceScopesOf } from './clients'
import { API_SCOPE_NAMES } from '~shared/scopes'
import type { ProviderKeys } from './keys'
import { renderProtocolError, sendPage, type WebPage } from './pages'
import { DEVICE_CODE_TTL, deviceAuthorizationAnswer, deviceFlowFeature, paceDevicePolling, prefillUserCode, throttleUserCodes } from './device-flow'
import { OIDC_PATH } from './paths'

/**
 * The protocol engine, `oidc-provider` (OpenID Certified), configured as contract section 9 says
 * (decisions 0400-0404). Its defaults are changed where they differ from the contract:
 *
 * - the ID token carries the granted scopes' claims (`conformIdTokenClaims: false`);
 * - refresh tokens rotate on every use (a used one presented again revokes the grant, the engine's
 *   own reuse detection);
 * - the account is checked again (active, verified, a role the app admits, its product session
 *   live) whenever a token is issued or UserInfo is read (`findAccount`);
 * - `offline_access` needs no `prompt=consent` from the app: the consent page, or the app being
 *   first-party, is the condition (see `offlineAccessConsent`);
 * - introspection answers only the app that holds the token;
 * - back-channel logout reaches the registered address whatever it is (the engine's outgoing
 *   requests refuse private and loopback addresses by default; only an admin registers one);
 * - its development interactions are off: sign-in and consent are the product's own pages.
 */
export interface ProviderOptions {
  issuer: string
  /** The admin API's resource indicator (`APP_URL/api`): client credentials tokens are for it alone. */
  apiResource: string
  db: Kysely<Database>
  /** The product's clock (sessions are timed by it); the engine's own expiries use the system's. */
  clock: Clock
  /** The product's throttling (the token endpoint is throttled per client address and per application). */
  limiter?: RateLimiter
  keys: ProviderKeys
  /** ACCESS_TOKEN_TTL, seconds. */
  accessTokenTtl: number
  /** The product session's longest life (REFRESH_TOKEN_MAX_AGE), seconds. */
  sessionMaxAge: number
  secureCookies: boolean
  trustProxy: boolean
  /** The web app's index.html, for the pages the engine renders (errors, logout), when it is served. */
  webPage?: WebPage
  /** A back-channel logout to deliver: queued, not sent inline (logout-jobs.ts). */
  queueBackchannelLogout: (clientId: string, accountId: string, sid: string) => Promise<void>
  onIssued?: (kind: string, clientId: string | undefined) => void
  onFailure?: (kind: string, clientId: string | undefined, error: string) => void
}

/** The scopes, and the claims each one opens (contract section 9). */
export const SCOPE_CLAIMS = {
  openid: ['sub', 'auth_time', 'amr'],
  profile: ['name', 'picture', 'updated_at'],
  email: ['email', 'email_verified'],
  phone: ['phone_number'],
  roles: ['roles'],
} as const

export const SCOPES = ['openid', 'profile', 'email', 'phone', 'roles', 'offline_access'] as const

/** Every scope the engine knows: the people's, and the admin API's (service applications only, src/shared/scopes.ts). */
const ENGINE_SCOPES = [...SCOPES, ...API_SCOPE_NAMES]

/** Marks an authorization request whose `prompt=consent` was added for `offline_access` (not asked by the app). */
export const IMPLIED_CONSENT_PARAM = 'accounts_offline_consent'
/** An app's choice of identity provider (contract section 10): the sign-in goes straight to it. */
export const IDP_HINT_PARAM = 'idp_hint'

export function createProvider(options: ProviderOptions): Provider {
  const { db, issuer, clock } = options
  const appOrigin = new URL(issuer).origin

  const policy = interactionPolicy.base()
  const login = policy.get('login')!
  // Single sign-on holds only while the product session that signed the provider session in is live.
  login.checks.add(
    new interactionPolicy.Check('product_session_ended', 'the sign-in that started this session has ended', async (ctx) => {
      const { session, result } = ctx.oidc
      if (!session?.accountId || result?.login) return interactionPolicy.Check.NO_NEED_TO_PROMPT
      const live = await db
        .selectFrom('oidc_session_links as l')
        .innerJoin('sessions as s', 's.id', 'l.session_id')
        .select('l.uid')
        .where('l.uid', '=', session.uid)
        .where('l.user_id', '=', session.accountId as string)
        .where('s.revoked_at', 'is', null)
        .where('s.expires_at', '>', clock())
        .where('s.idle_expires_at', '>', clock())
        .executeTakeFirst()
      return live ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT
    }),
  )
  // Someone signed in whom the app does not admit is told why on our page, then the app hears access_denied.
  login.checks.add(
    new interactionPolicy.Check('access_refused', 'the account may not use this application', async (ctx) => {
      const { session, client } = ctx.oidc
      if (!session?.accountId) return interactionPolicy.Check.NO_NEED_TO_PROMPT
      const account = await loadAccount(db, clock(), session.accountId, undefined)
      return account && accountMayUseApp(account, client) ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT
    }),
  )

  const configuration: Configuration = {
    adapter: createAdapterClass(db, clock),
    clients: [],
    jwks: { keys: options.keys.signing as never },
    cookies: {
      keys: options.keys.cookies,
      long: { signed: true, httpOnly: true, sameSite: 'lax', secure: options.secureCookies },
      short: { signed: true, httpOnly: true, sameSite: 'lax', secure: options.secureCookies },
      names: { session: 'accounts_oidc_session', interaction: 'accounts_oidc_interaction', resume: 'accounts_oidc_resume' },
    },
    // Every ID token says when and how the person signed in (`auth_time`, RFC 8176 `amr`) under `openid`.
    claims: { iss: null, sid: null, ...SCOPE_CLAIMS, offline_access: [] } as unknown as Configuration['claims'],
    scopes: ENGINE_SCOPES,
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
    extraClientMetadata: { properties: ['accounts_allowed_roles', 'accounts_first_party', SERVICE_SCOPES_METADATA] },
    extraParams: [IMPLIED_CONSENT_PARAM, IDP_HINT_PARAM],
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256', 'ES256'],
      userinfoSigningAlgValues: ['RS256', 'ES256'],
      introspectionSigningAlgValues: ['RS256', 'ES256'],
      authorizationSigningAlgValues: ['RS256', 'ES256'],
    },
    allowOmittingSingleRegisteredRedirectUri: false,
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => ('clientId' in token ? token.clientId === client.clientId : false),
      },
      revocation: { enabled: true },
      backchannelLogout: { enabled: true },
      // Service applications (contract section 11, decision 0500): client credentials for the admin API.
      clientCredentials: { enabled: true },
      // Sign-in for command-line tools and devices (contract section 11, device-flow.ts).
      deviceFlow: deviceFlowFeature(options.webPage),
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, client, oneOf) => oneOf ?? (client && serviceScopesOf(client).length > 0 ? options.apiResource : undefined),
        useGrantedResource: async () => false,
        getResourceServerInfo: async (ctx, resourceIndicator, client) => apiResourceServer(ctx, resourceIndicator, client, options),
      },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          const action = /action="([^"]+)"/.exec(form)?.[1] ?? ''
          const xsrf = /name="xsrf" value="([^"]+)"/.exec(form)?.[1] ?? ''
          const client = ctx.oidc.client
          sendPage(ctx, 200, options.webPage, { 'oidc-logout-action': action, 'oidc-logout-xsrf': xsrf, 'oidc-app-name': client?.clientName ?? '' })
        },
        postLogoutSuccessSource: async (ctx) => {
          sendPage(ctx, 200, options.webPage, { 'oidc-signed-out': ctx.oidc.client?.clientName ?? '' })
        },
      },
    },
    ttl: {
      AccessToken: options.accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: options.sessionMaxAge,
      Grant: 365 * 24 * 3600,
      ClientCredentials: options.accessTokenTtl,
      DeviceCode: DEVICE_CODE_TTL,
      // A refresh token lives no longer than the product session that signed in could (and dies with it).
      RefreshToken: options.sessionMaxAge,
    },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    interactions: {
      url: (_ctx, interaction) => `/api/oidc/interactions/${interaction.uid}`,
      policy,
    },
    async findAccount(ctx, sub, token) {
      const sessionUid = token && 'sessionUid' in token ? (token.sessionUid as string | undefined) : undefined
      const account = await loadAccount(db, clock(), sub, sessionUid)
      if (!account || !accountMayUseApp(account, ctx.oidc.client)) return undefined
      if (account.session_live === false) return undefined
      return {
        accountId: account.id,
        claims: async () => ({
          sub: account.id,
          name: account.name,
          ...(account.picture_id ? { picture: `${appOrigin}/api/users/pictures/${account.picture_id}` } : {}),
          updated_at: Math.floor(account.updated_at.getTime() / 1000),
          email: account.email,
          email_verified: account.email_verified_at !== null,
          ...(account.phone ? { phone_number: account.phone } : {}),
          roles: [account.role],
        }),
      }
    },
    async loadExistingGrant(ctx) {
      const { client, session, result } = ctx.oidc
      if (!client || !session?.accountId) return undefined
      const accountId = session.accountId
      const grantId =
        (result?.consent as { grantId?: string } | undefined)?.grantId ?? session.grantIdFor(client.clientId) ?? (await rememberedGrantId(db, accountId, client.clientId))
      let grant = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined
      if (grant && (grant.accountId !== accountId || grant.clientId !== client.clientId)) grant = undefined
      if (isFirstParty(client)) {
        // A first-party app is allowed what it asks for, without a consent page.
        grant ??= new ctx.oidc.provider.Grant({ accountId, clientId: client.clientId })
        const requested = String(ctx.oidc.params?.scope ?? 'openid')
        const missing = requested.split(' ').filter((scope) => scope && !grant!.getOIDCScope().split(' ').includes(scope))
        if (missing.length > 0 || !grant.jti) {
          grant.addOIDCScope(requested)
          await grant.save()
        }
      }
      return grant
    },
    clientBasedCORS(_ctx, origin, client) {
      // Only a public app's own redirect origins may call the token and UserInfo endpoints from a browser.
      if (client.clientAuthMethod !== 'none') return false
      return (client.redirectUris ?? []).some((uri) => new URL(uri).origin === origin)
    },
    renderError: async (ctx, out) => {
      renderProtocolError(ctx, out, options.webPage)
    },
    fetch: (url, init) => {
      // Back-channel logout goes to the address an admin registered, private or loopback alike.
      const { dispatcher: _ssrfGuard, ...rest } = init as RequestInit & { dispatcher?: unknown }
      return globalThis.fetch(url, rest)
    },
  }

  const provider = new Provider(issuer, configuration)
  provider.proxy = options.trustProxy

  // Secrets are stored as SHA-256 hashes: compare what the app sent by its hash.
  provider.Client.prototype.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, actual: string) {
    return secretMatches(this.clientSecret, actual)
  }
  // A provider session the engine ends itself (RP-initiated logout) ends its product session too;
  // the engine's other removals of a session row are renewals of its identifier, not ends.
  const destroySession = provider.Session.prototype.destroy
  provider.Session.prototype.destroy = async function destroyAndEndProductSession(this: InstanceType<typeof provider.Session>) {
    await destroySession.call(this)
    if (this.uid) await endLinkedProductSession(db, this.uid)
  }
  // Every ID token names its provider session (`sid`), so any app can match a later logout to it.
  provider.Client.prototype.includeSid = function includeSid() {
    return true
  }
  // Back-channel logouts are delivered by the product's own queue, retried while the app is down.
  const deliver = provider.Client.prototype.backchannelLogout
  provider.Client.prototype.backchannelLogout = async function queueLogout(this: { clientId: string }, sub: string, sid: string) {
    await options.queueBackchannelLogout(this.clientId, sub, sid)
  }
  ;(provider as unknown as { deliverBackchannelLogout: typeof deliver }).deliverBackchannelLogout = deliver

  if (options.limiter?.enabled) throttleTokenEndpoint(provider, options.limiter)
  paceDevicePolling(provider, db)
  provider.use(deviceAuthorizationAnswer(issuer.replace(/\/oidc\/?$/, '')))
  provider.use(prefillUserCode)
  if (options.limiter?.enabled) provider.use(throttleUserCodes(options.limiter, options.webPage))
  provider.use(adminScopesOnlyForServices)
  provider.use(offlineAccessConsent)
  provider.use(linkProductSession(db))
  provider.use(nameAppOnSignedOutPage)
  // Innermost: what the request deferred is stored once the engine has made its answer, before it
  // is sent. The code or refresh token a token request consumes is marked in that statement: when
  // another request marked it first, the answer made is replaced by the refusal (adapter.ts), and
  // only an answer whose writes are stored counts as tokens issued (`grant.success`, below).
  const tokenAnswers = new WeakSet<object>()
  provider.use(async (ctx, next) => {
    try {
      await next()
    } catch (error) {
      await flushDeferredWrites(db)
      throw error
    }
    try {
      await flushDeferredWrites(db)
    } catch (error) {
      if (!(error instanceof errors.InvalidGrant)) throw error
      ctx.status = error.statusCode
      ctx.body = { error: error.error, error_description: error.error_description }
      provider.emit('grant.error', ctx, error)
      return
    }
    if (tokenAnswers.has(ctx)) options.onIssued?.(String(ctx.oidc.params?.grant_type ?? 'token'), ctx.oidc.client?.clientId)
  })

  if (options.onIssued || options.onFailure) {
    const issued = options.onIssued ?? (() => {})
    provider.on('grant.success', (ctx: KoaContextWithOIDC) => tokenAnswers.add(ctx))
    provider.on('authorization.success', (ctx: KoaContextWithOIDC) => issued('code', ctx.oidc.client?.clientId))
    const failed = options.onFailure ?? (() => {})
    provider.on('grant.error', (ctx: KoaContextWithOIDC, error: Error & { error?: string }) => failed('token', ctx.oidc?.client?.clientId, error.error ?? error.name))
    provider.on('authorization.error', (ctx: KoaContextWithOIDC, error: Error & { error?: string }) =>
      failed('authorization', ctx.oidc?.client?.clientId, error.error ?? error.name),
    )
    provider.on('userinfo.error', (ctx: KoaContextWithOIDC, error: Error & { error?: string }) =>
      failed('userinfo', ctx.oidc?.client?.clientId, error.error ?? error.name),
    )
  }
  return provider
}

/**
 * An application that signs people in may not use the client credentials grant at all; when it
 * asks for an admin API scope that way, the answer says what is wrong with the request in the
 * contract's words: `invalid_scope` (only service applications get admin API scopes).
 */
async function adminScopesOnlyForServices(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  await next()
  if (ctx.path !== '/token' || ctx.status !== 400) return
  const body = ctx.body as { error?: string; error_description?: string } | undefined
  const params = ctx.oidc?.params as { grant_type?: string; scope?: string } | undefined
  if (body?.error !== 'invalid_request' || params?.grant_type !== 'client_credentials' || serviceScopesOf(ctx.oidc.client).length > 0) return
  const asked = String(params.scope ?? '').split(' ')
  if (!asked.some((scope) => (API_SCOPE_NAMES as string[]).includes(scope))) return
  ctx.body = { error: 'invalid_scope', error_description: 'admin API scopes are granted to service applications only' }
}

/**
 * The admin API as the one resource server (RFC 8707): only a service application gets tokens for
 * it, with opaque values (checked in the database at every call: auth/service-credentials.ts),
 * living at most ACCESS_TOKEN_TTL. Without `scope`, a token carries every scope the application
 * holds; a scope it does not hold, known or not, is `invalid_scope`.
 */
function apiResourceServer(ctx: KoaContextWithOIDC, resourceIndicator: string, client: InstanceType<Provider['Client']>, options: ProviderOptions) {
  const granted = serviceScopesOf(client)
  if (resourceIndicator !== options.apiResource || granted.length === 0) throw new errors.InvalidTarget()
  const params = ctx.oidc.params as { scope?: string } | undefined
  if (params && ctx.oidc.route === 'token') {
    if (!params.scope) params.scope = granted.join(' ')
    const unknown = params.scope.split(' ').find((scope) => scope !== '' && !granted.includes(scope))
    if (unknown !== undefined) throw new errors.InvalidScope('requested scope is not allowed', unknown)
  }
  return { scope: granted.join(' '), audience: options.apiResource, accessTokenFormat: 'opaque' as const, accessTokenTTL: options.accessTokenTtl }
}

/**
 * The "signed out" page names the app one signed out of. The engine sends its `client_id` there only
 * when that app alone is signed out; ours ends the whole session (`logout=yes`, one life for a
 * session), so the confirmation's redirect to that page gets the app it was for, which the engine's
 * page reads back.
 */
async function nameAppOnSignedOutPage(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  await next()
  if (ctx.oidc?.route !== 'end_session_confirm' || ctx.status !== 303 || !ctx.oidc.client) return
  const location = new URL(ctx.response.get('location'))
  if (location.href.split('?')[0] !== ctx.oidc.urlFor('end_session_success') || location.searchParams.has('client_id')) return
  location.searchParams.set('client_id', ctx.oidc.client.clientId)
  ctx.response.set('location', location.href)
}

/** The token request being answered, for the per-application count made when its client is looked up. */
const tokenRequest = new AsyncLocalStorage<{ ctx: { set(name: string, value: string): void }; counted: boolean }>()

/**
 * The token endpoint's throttling (contract section 9): every request counts against its client
 * address and, once its client is looked up, against its application; a failed client
 * authentication also counts as a failed sign-in from that address (`signInByIp`), and an address
 * past that limit is refused before anything is checked. Refusals are 429 with Retry-After.
 */
function throttleTokenEndpoint(provider: Provider, limiter: RateLimiter): void {
  const refuse = (ctx: { set(name: string, value: string): void }, error: unknown) => {
    if (!(error instanceof HttpError) || error.statusCode !== 429) throw error
    const retryAfter = error.extra.headers?.['Retry-After']
    if (retryAfter) ctx.set('Retry-After', retryAfter)
    const refusal = new errors.OIDCProviderError(429, 'too_many_requests')
    refusal.error_description = 'Too many requests. Please wait a while and try again.'
    return refusal
  }
  provider.use(async (ctx, next) => {
    if (ctx.path !== '/token' || ctx.method !== 'POST') return next()
    const ip = ctx.ip
    try {
      await limiter.check(RULES.signInByIp, ip)
      await limiter.consume(RULES.oidcTokenByIp, ip)
    } catch (error) {
      const refusal = refuse(ctx, error)
      ctx.status = 429
      ctx.body = { error: refusal.message, error_description: refusal.error_description }
      return
    }
    await tokenRequest.run({ ctx, counted: false }, next)
    const body = ctx.body as { error?: string } | undefined
    if (ctx.status === 401 && body?.error === 'invalid_client') await limiter.consume(RULES.signInByIp, ip).catch(() => {})
  })
  const find = provider.Client.find.bind(provider.Client)
  ;(provider.Client as { find: typeof find }).find = async (id: string) => {
    const request = tokenRequest.getStore()
    if (request && !request.counted && typeof id === 'string' && id.length > 0 && id.length <= 100) {
      request.counted = true
      try {
        await limiter.consume(RULES.oidcTokenByApp, id)
      } catch (error) {
        throw refuse(request.ctx, error)
      }
    }
    return find(id)
  }
}

/** Sends the delivery of a queued back-channel logout (the engine's own, signed with its keys). */
export async function deliverBackchannelLogout(provider: Provider, clientId: string, accountId: string, sid: string): Promise<'sent' | 'no-client'> {
  const client = await provider.Client.find(clientId)
  if (!client || !client.backchannelLogoutUri) return 'no-client'
  const deliver = (provider as unknown as { deliverBackchannelLogout: (this: unknown, sub: string, sid: string) => Promise<void> }).deliverBackchannelLogout
  await deliver.call(client, accountId, sid)
  return 'sent'
}

/**
 * After a sign-in through our pages, the provider session is tied to the product session that
 * signed it in (`oidc_session_links`): when that one ends, the trigger of migration 0014 ends this
 * one with it (decision 0402).
 */
function linkProductSession(db: Kysely<Database>) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    await next()
    const oidc = ctx.oidc as KoaContextWithOIDC['oidc'] | undefined
    if (oidc?.route !== 'resume' && oidc?.route !== 'device_resume') return
    const result = oidc.result as { login?: { accountId?: string }; productSessionId?: string } | undefined
    const session = oidc.session
    if (!result?.productSessionId || !result.login?.accountId || !session?.uid || session.accountId !== result.login.accountId) return
    const values = { uid: session.uid, session_id: result.productSessionId, user_id: result.login.accountId, created_at: new Date() }
    await db
      .insertInto('oidc_session_links')
      .values(values)
      .onConflict((oc) => oc.column('uid').doUpdateSet({ session_id: values.session_id, user_id: values.user_id, created_at: values.created_at }))
      .execute()
  }
}

async function rememberedGrantId(db: Kysely<Database>, accountId: string, clientId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('oidc_payloads')
    .select('id')
    .where('account_id', '=', accountId)
    .where('model', '=', 'Grant')
    .where('client_id', '=', clientId)
    .where('expires_at', '>', new Date())
    .orderBy('expires_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row?.id
}

/**
 * `offline_access` without `prompt=consent`: the engine would drop the scope (OpenID Connect Core
 * §11 makes consent its condition). The contract makes the consent page, or the app being
 * first-party, that condition: so the prompt is added here, marked, and the interaction finishes
 * the consent step by itself when nothing in it is new (routes/applications/app-sign-in.ts).
 */
/** A new query string, with the mounted URL kept in step (the engine derives its mount path from it). */
function setQuery(ctx: KoaContextWithOIDC, query: URLSearchParams): void {
  ctx.querystring = query.toString()
  ;(ctx.req as typeof ctx.req & { originalUrl?: string }).originalUrl = OIDC_PATH + ctx.url
}

async function offlineAccessConsent(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  if ((ctx.path === '/auth' || ctx.path === '/auth/') && ctx.method === 'GET') {
    const query = new URLSearchParams(ctx.querystring)
    const scopes = (query.get('scope') ?? '').split(' ')
    const prompts = (query.get('prompt') ?? '').split(' ').filter(Boolean)
    if (scopes.includes('offline_access') && !prompts.includes('consent') && !prompts.includes('none') && query.getAll('prompt').length <= 1) {
      query.set('prompt', [...prompts, 'consent'].join(' '))
      query.set(IMPLIED_CONSENT_PARAM, '1')
      setQuery(ctx, query)
    } else if (query.has(IMPLIED_CONSENT_PARAM)) {
      query.delete(IMPLIED_CONSENT_PARAM)
      setQuery(ctx, query)
    }
  }
  await next()
}
