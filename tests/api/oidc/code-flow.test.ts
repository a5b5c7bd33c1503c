import { createRemoteJWKSet, customFetch, decodeJwt, jwtVerify } from 'jose'
import * as client from 'openid-client'
import { describe, expect, it } from 'vitest'
import { createAdapterClass } from '~server/oidc/adapter'
import { EngineRequest, engineRequest, flushDeferredWrites } from '~server/oidc/engine-request'
import { useTestApp } from '../../support/test-app'
import { continueAsSignedIn, exchangeCode, injectFetch, protocolError, registerApplication, relyingParty, startAuthorization, TestBrowser } from '../../support/oidc'

/**
 * Sign in with Accounts: the authorization code flow with PKCE, as a certified relying party
 * (`openid-client`) sees it, for a confidential and a public app; the ID token checked against the
 * JWKS, the claims of each scope, UserInfo, refresh with rotation and reuse detection, introspection
 * and revocation.
 */
describe('Sign in with Accounts: the code flow', () => {
  const test = useTestApp()

  async function signInThroughApp(options: { type?: 'confidential' | 'public'; scope?: string; firstParty?: boolean } = {}) {
    const application = await registerApplication(test.ctx, { type: options.type ?? 'confidential', firstParty: options.firstParty ?? false })
    const config = await relyingParty(test, application)
    const person = await test.signIn({ name: 'Ada Lovelace', role: 'DEVELOPER' })
    await test.ctx.db.updateTable('users').set({ phone: '+14155550123' }).where('id', '=', person.id).execute()
    const browser = new TestBrowser(test)
    const started = await startAuthorization(config, application, { scope: options.scope ?? 'openid profile email phone roles offline_access' })
    const page = await browser.follow(started.url.toString())
    const steps: string[] = []
    const callback = await continueAsSignedIn(browser, page, person, { steps })
    const tokens = await exchangeCode(config, callback, started)
    return { application, config, person, browser, started, page, steps, callback, tokens }
  }

  /** The stored row of the one refresh token this person holds. */
  const refreshTokenRow = (accountId: string) =>
    test.ctx.db.selectFrom('oidc_payloads').select(['id', 'grant_id']).where('model', '=', 'RefreshToken').where('account_id', '=', accountId).executeTakeFirstOrThrow()

  it('publishes discovery at the issuer, with the contract’s choices', async () => {
    const response = await test.request('GET', '/oidc/.well-known/openid-configuration', { headers: { host: 'app.test' } })
    expect(response.statusCode).toBe(200)
    const discovery = response.json()
    expect(discovery.issuer).toBe('http://app.test/oidc')
    expect(discovery.response_types_supported).toEqual(['code'])
    expect(discovery.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']))
    expect(discovery.code_challenge_methods_supported).toEqual(['S256'])
    expect(discovery.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'none']))
    expect(discovery.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'phone', 'roles', 'offline_access']))
    expect(discovery.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'ES256']))
    expect(discovery.backchannel_logout_supported).toBe(true)
    for (const endpoint of [
      'authorization_endpoint',
      'token_endpoint',
      'userinfo_endpoint',
      'jwks_uri',
      'end_session_endpoint',
      'introspection_endpoint',
      'revocation_endpoint',
    ]) {
      expect(discovery[endpoint]).toMatch(/^http:\/\/app\.test\/oidc\//)
    }
  })

  it('signs a confidential app’s user in: our sign-in page, consent, then an ID token with every granted scope’s claims', async () => {
    const { application, page, tokens, person, config } = await signInThroughApp()
    expect(page.pathname).toBe('/login')
    const claims = tokens.claims()!
    expect(claims.sub).toBe(person.id)
    expect(claims.aud).toBe(application.id)
    expect(claims).toMatchObject({ name: 'Ada Lovelace', email: person.email, email_verified: true, phone_number: '+14155550123', roles: ['DEVELOPER'] })
    expect(claims.amr).toEqual(['pwd'])
    expect(typeof claims.auth_time).toBe('number')
    expect(typeof claims.sid).toBe('string')
    expect(tokens.refresh_token).toBeTruthy()
    // Opaque access token: not a JWT.
    expect(tokens.access_token.split('.')).toHaveLength(1)

    // The ID token verifies against the published keys, RS256.
    const jwks = createRemoteJWKSet(new URL('http://app.test/oidc/jwks'), { [customFetch]: injectFetch(test.app) as never })
    const { protectedHeader } = await jwtVerify(tokens.id_token!, jwks, { issuer: 'http://app.test/oidc', audience: application.id })
    expect(protectedHeader.alg).toBe('RS256')

    const info = await client.fetchUserInfo(config, tokens.access_token, person.id)
    expect(info).toMatchObject({ sub: person.id, name: 'Ada Lovelace', email: person.email, phone_number: '+14155550123', roles: ['DEVELOPER'] })
  })

  it('gives each scope its own claims, and nothing more', async () => {
    const { tokens, config, person } = await signInThroughApp({ scope: 'openid email' })
    const claims = tokens.claims()!
    expect(claims.email).toBe(person.email)
    expect(claims.name).toBeUndefined()
    expect(claims.roles).toBeUndefined()
    expect(claims.phone_number).toBeUndefined()
    expect(tokens.refresh_token).toBeUndefined()
    const info = await client.fetchUserInfo(config, tokens.access_token, person.id)
    expect(Object.keys(info).sort()).toEqual(['email', 'email_verified', 'sub'])
  })

  it('signs a public app in with PKCE and no secret', async () => {
    const { tokens, person } = await signInThroughApp({ type: 'public' })
    expect(tokens.claims()!.sub).toBe(person.id)
  })

  it('rotates refresh tokens, and a used one presented again revokes the grant', async () => {
    const { tokens, config, person } = await signInThroughApp()
    const first = tokens.refresh_token!
    const second = await client.refreshTokenGrant(config, first)
    expect(second.refresh_token).toBeTruthy()
    expect(second.refresh_token).not.toBe(first)
    expect(second.claims()!.sub).toBe(person.id)
    await expect(client.refreshTokenGrant(config, first)).rejects.toMatchObject({ error: 'invalid_grant' })
    // The whole grant is gone: the newer refresh token and the access tokens too.
    await expect(client.refreshTokenGrant(config, second.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' })
    await expect(client.fetchUserInfo(config, second.access_token, person.id)).rejects.toThrow()
  })

  it('uses a refresh token or a code once even when two requests race with it: the second consumption is refused and the grant revoked', async () => {
    const { tokens, person } = await signInThroughApp()
    const row = await refreshTokenRow(person.id)
    const RefreshTokens = createAdapterClass(test.ctx.db)
    const adapter = new RefreshTokens('RefreshToken')
    // Both requests found the token unused; the first marks it consumed, the second cannot.
    await adapter.consume(row.id)
    await expect(adapter.consume(row.id)).rejects.toMatchObject({ error: 'invalid_grant' })
    const left = await test.ctx.db.selectFrom('oidc_payloads').select('model').where('grant_id', '=', row.grant_id).execute()
    expect(left).toEqual([])
    expect(tokens.refresh_token).toBeTruthy()
  })

  it('consumes a refresh token in the statement that stores what it gives, and refuses the request whose statement finds it consumed', async () => {
    const { person } = await signInThroughApp()
    const row = await refreshTokenRow(person.id)
    const adapter = new (createAdapterClass(test.ctx.db))('RefreshToken')
    const consumedAt = () => test.ctx.db.selectFrom('oidc_payloads').select('consumed_at').where('id', '=', row.id).executeTakeFirst()
    // Two token requests both found it unused; each defers its consumption to its last statement.
    const first = new EngineRequest()
    const second = new EngineRequest()
    await engineRequest.run(first, () => adapter.consume(row.id))
    await engineRequest.run(second, () => adapter.consume(row.id))
    expect((await consumedAt())?.consumed_at).toBeNull()
    await engineRequest.run(first, () => flushDeferredWrites(test.ctx.db))
    expect((await consumedAt())?.consumed_at).toBeInstanceOf(Date)
    await expect(engineRequest.run(second, () => flushDeferredWrites(test.ctx.db))).rejects.toMatchObject({ error: 'invalid_grant' })
    expect(await test.ctx.db.selectFrom('oidc_payloads').select('model').where('grant_id', '=', row.grant_id).execute()).toEqual([])
  })

  it('answers two refresh requests racing with one refresh token with one set of tokens and one invalid_grant, and revokes the grant', async () => {
    const { tokens, config, person, application } = await signInThroughApp()
    const answers = await Promise.allSettled([client.refreshTokenGrant(config, tokens.refresh_token!), client.refreshTokenGrant(config, tokens.refresh_token!)])
    const given = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []))
    const refused = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as { error?: string }] : []))
    expect(given).toHaveLength(1)
    expect(refused.map((error) => error.error)).toEqual(['invalid_grant'])
    // Counted as what was answered: one issuance, one failure.
    const metrics = (await test.request('GET', '/metrics')).body
    expect(metrics).toContain(`accounts_oidc_issued_total{application="${application.id}",kind="refresh_token"} 1`)
    expect(metrics).toContain(`accounts_oidc_failures_total{application="${application.id}",endpoint="token",error="invalid_grant"} 1`)
    // Whichever way the two met, the grant is gone: the tokens given are refused too.
    await expect(client.refreshTokenGrant(config, given[0]!.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' })
    await expect(client.fetchUserInfo(config, given[0]!.access_token, person.id)).rejects.toThrow()
  })

  it('answers introspection only to the app that holds the token, and revokes on request', async () => {
    const { tokens, config, application } = await signInThroughApp()
    const mine = await client.tokenIntrospection(config, tokens.access_token)
    expect(mine.active).toBe(true)
    expect(mine.client_id).toBe(application.id)
    const other = await registerApplication(test.ctx, { name: 'Other app' })
    const otherConfig = await relyingParty(test, other)
    expect((await client.tokenIntrospection(otherConfig, tokens.access_token)).active).toBe(false)
    await client.tokenRevocation(config, tokens.access_token)
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false)
  })

  it('refuses a reused code, and revokes what it gave', async () => {
    const { config, callback, started, tokens, person } = await signInThroughApp()
    await expect(exchangeCode(config, callback, started)).rejects.toMatchObject({ error: 'invalid_grant' })
    await expect(client.fetchUserInfo(config, tokens.access_token, person.id)).rejects.toThrow()
  })

  it('refuses a code or refresh token that another app presents with its own valid secret, and the owner can still use it', async () => {
    const application = await registerApplication(test.ctx)
    const config = await relyingParty(test, application)
    const other = await relyingParty(test, await registerApplication(test.ctx))
    const person = await test.signIn()
    const browser = new TestBrowser(test)
    const started = await startAuthorization(config, application, { scope: 'openid offline_access' })
    const callback = await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person)
    expect(await protocolError(exchangeCode(other, callback, started))).toBe('invalid_grant')
    const tokens = await exchangeCode(config, callback, started)
    expect(await protocolError(client.refreshTokenGrant(other, tokens.refresh_token!))).toBe('invalid_grant')
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!)
    expect(refreshed.claims()!.sub).toBe(person.id)
    expect((await client.fetchUserInfo(config, refreshed.access_token, person.id)).sub).toBe(person.id)
  })

  it('refuses a wrong or replaced client secret', async () => {
    const application = await registerApplication(test.ctx)
    const wrong = await relyingParty(test, { ...application, secret: 'not-the-secret' })
    expect(await protocolError(client.refreshTokenGrant(wrong, 'anything'))).toBe('invalid_client')
  })

  it('skips the consent page for a first-party app, and remembers consent for the others', async () => {
    const first = await signInThroughApp({ firstParty: true })
    expect(first.page.pathname).toBe('/login')
    expect(first.steps).toEqual(['login'])
    // A second sign-in to the same app in the same browser: no page at all (single sign-on, consent remembered).
    const again = await startAuthorization(first.config, first.application, { scope: 'openid profile email phone roles offline_access' })
    const landing = await first.browser.follow(again.url.toString())
    expect(landing.origin + landing.pathname).toBe(first.application.redirectUri)
    const tokens = await exchangeCode(first.config, landing, again)
    expect(tokens.claims()!.sub).toBe(first.person.id)

    const third = await signInThroughApp()
    expect(third.steps).toEqual(['login', 'consent'])
    const repeat = await startAuthorization(third.config, third.application, { scope: 'openid profile email phone roles offline_access' })
    const direct = await third.browser.follow(repeat.url.toString())
    expect(direct.origin + direct.pathname).toBe(third.application.redirectUri)
    const grants = await test.ctx.db.selectFrom('oidc_payloads').select('id').where('model', '=', 'Grant').where('account_id', '=', third.person.id).execute()
    expect(grants).toHaveLength(1)
  })

  it('counts tokens issued and failures by application in /metrics', async () => {
    const { application, config } = await signInThroughApp()
    await protocolError(client.refreshTokenGrant(config, 'not-a-refresh-token'))
    const metrics = (await test.request('GET', '/metrics')).body
    expect(metrics).toContain(`accounts_oidc_issued_total{application="${application.id}",kind="code"} 1`)
    expect(metrics).toContain(`accounts_oidc_issued_total{application="${application.id}",kind="authorization_code"} 1`)
    expect(metrics).toMatch(new RegExp(`accounts_oidc_failures_total\\{application="${application.id}",endpoint="token",error="invalid_grant"\\} 1`))
  })

  it('passes the ID token’s nonce, and its claims can be read without UserInfo', async () => {
    const { tokens, started } = await signInThroughApp({ scope: 'openid roles' })
    const raw = decodeJwt(tokens.id_token!)
    expect(raw.nonce).toBe(started.nonce)
    expect(raw.roles).toEqual(['DEVELOPER'])
  })
})
