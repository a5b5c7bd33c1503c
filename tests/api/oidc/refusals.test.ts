import crypto from 'node:crypto'
import * as client from 'openid-client'
import { describe, expect, it } from 'vitest'
import { uniqueEmail, useTestApp } from '../../support/test-app'
import { continueAsSignedIn, exchangeCode, protocolError, registerApplication, relyingParty, startAuthorization, TestBrowser } from '../../support/oidc'

/**
 * Sign in with Accounts refuses what the contract refuses, each with a clear protocol error and
 * nothing issued; errors that cannot go back to an app are a page of ours, with no redirect.
 */
const t = useTestApp()

function authorizeUrl(clientId: string, params: Record<string, string>): string {
  const query = new URLSearchParams({ client_id: clientId, redirect_uri: 'http://127.0.0.1:4000/callback', scope: 'openid', state: 's', ...params })
  return `/oidc/auth?${query}`
}

const challenge = (verifier: string, method = 'S256') => (method === 'plain' ? verifier : crypto.createHash('sha256').update(verifier).digest('base64url'))

describe('authorization requests', () => {
  it('answers an unknown application and a redirect URI that does not match with our own page, redirecting nowhere', async () => {
    const application = await registerApplication(t.ctx)
    const browser = new TestBrowser(t)
    for (const [url, error] of [
      [authorizeUrl('app_unknown', { response_type: 'code' }), 'invalid_client'],
      [authorizeUrl(application.id, { response_type: 'code', redirect_uri: 'http://127.0.0.1:4000/callback/' }), 'invalid_redirect_uri'],
      [authorizeUrl(application.id, { response_type: 'code', redirect_uri: 'https://evil.example/callback' }), 'invalid_redirect_uri'],
    ] as const) {
      const response = await browser.request('GET', url)
      expect(response.statusCode).toBe(400)
      expect(response.headers.location).toBeUndefined()
      expect(response.headers['content-type']).toMatch(/text\/html/)
      expect(response.body).toContain(`<meta name="oidc-error" content="${error}"`)
    }
  })

  it('refuses response types other than code, and a public app without PKCE or with plain', async () => {
    const confidential = await registerApplication(t.ctx)
    const publicApp = await registerApplication(t.ctx, { type: 'public' })
    const browser = new TestBrowser(t)
    const verifier = 'v'.repeat(50)
    const cases: [string, Record<string, string>, string][] = [
      [confidential.id, { response_type: 'token' }, 'unsupported_response_type'],
      [confidential.id, { response_type: 'id_token' }, 'unsupported_response_type'],
      [publicApp.id, { response_type: 'code' }, 'invalid_request'],
      [publicApp.id, { response_type: 'code', code_challenge: challenge(verifier, 'plain'), code_challenge_method: 'plain' }, 'invalid_request'],
    ]
    for (const [clientId, params, error] of cases) {
      const response = await browser.request('GET', authorizeUrl(clientId, params))
      expect(response.statusCode, JSON.stringify(params)).toBe(303)
      const back = new URL(String(response.headers.location))
      expect(back.origin + back.pathname).toBe('http://127.0.0.1:4000/callback')
      // An implicit response type would answer in the fragment; the error is refused there too.
      const answer = new URLSearchParams(back.search || back.hash.slice(1))
      expect(answer.get('error')).toBe(error)
      expect(answer.get('code')).toBeNull()
    }
  })

  it('tells a person whose role the app does not admit why, then the app hears access_denied', async () => {
    const application = await registerApplication(t.ctx, { allowedRoles: ['ADMIN', 'DEVELOPER'] })
    const config = await relyingParty(t, application)
    const person = await t.signIn({ email: uniqueEmail('client'), role: 'CLIENT' })
    const browser = new TestBrowser(t)
    const started = await startAuthorization(config, application)
    const page = await browser.follow(started.url.toString())
    const uid = page.searchParams.get('interaction')!
    const refused = await browser.request('POST', `/api/oidc/interactions/${uid}/login`, { token: person.accessToken, csrf: person.csrfToken, body: {} })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ code: 'APP_ACCESS_DENIED', message: 'You do not have access to Team Wiki' })
    const abort = await browser.request('POST', `/api/oidc/interactions/${uid}/abort`, { body: {} })
    const back = await browser.follow(abort.json().data.redirectTo)
    expect(back.searchParams.get('error')).toBe('access_denied')
    expect(back.searchParams.get('code')).toBeNull()
  })

  it('explains a refusal found at single sign-on (the role changed since), before the app hears access_denied', async () => {
    const application = await registerApplication(t.ctx, { firstParty: true, allowedRoles: ['DEVELOPER'] })
    const config = await relyingParty(t, application)
    const person = await t.signIn({ email: uniqueEmail('dev'), role: 'DEVELOPER' })
    const browser = new TestBrowser(t)
    const first = await startAuthorization(config, application)
    await exchangeCode(config, await continueAsSignedIn(browser, await browser.follow(first.url.toString()), person), first)
    await t.ctx.db
      .updateTable('oidc_applications')
      .set({ allowed_roles: ['ADMIN'], updated_at: new Date() })
      .where('id', '=', application.id)
      .execute()
    const again = await startAuthorization(config, application)
    const page = await browser.follow(again.url.toString())
    expect(page.pathname).toBe('/login')
    const details = (await browser.request('GET', `/api/oidc/interactions/${page.searchParams.get('interaction')}/details`)).json().data
    expect(details).toMatchObject({ refusal: 'role', app: { name: 'Team Wiki', firstParty: true } })
  })

  it('sends access_denied when the person denies consent, and issues nothing', async () => {
    const application = await registerApplication(t.ctx)
    const config = await relyingParty(t, application)
    const person = await t.signIn({ email: uniqueEmail('deny') })
    const browser = new TestBrowser(t)
    const started = await startAuthorization(config, application)
    const back = await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person, { consent: 'deny' })
    expect(back.searchParams.get('error')).toBe('access_denied')
    expect(await t.ctx.db.selectFrom('oidc_payloads').select('id').where('model', '=', 'Grant').where('account_id', '=', person.id).execute()).toEqual([])
  })

  it('binds every step to the browser that started it', async () => {
    const application = await registerApplication(t.ctx)
    const config = await relyingParty(t, application)
    const person = await t.signIn({ email: uniqueEmail('bound') })
    const started = await startAuthorization(config, application)
    const page = await new TestBrowser(t).follow(started.url.toString())
    const uid = page.searchParams.get('interaction')!
    // Another browser (no interaction cookie) finds nothing under that id.
    const stranger = new TestBrowser(t)
    expect((await stranger.request('GET', `/api/oidc/interactions/${uid}/details`)).json().code).toBe('INTERACTION_NOT_FOUND')
    const step = await stranger.request('POST', `/api/oidc/interactions/${uid}/login`, { token: person.accessToken, csrf: person.csrfToken, body: {} })
    expect(step.statusCode).toBe(404)
  })

  it('keeps its cookies from scripts, and from cross-site requests that need none', async () => {
    const application = await registerApplication(t.ctx)
    const config = await relyingParty(t, application)
    const started = await startAuthorization(config, application)
    const response = await new TestBrowser(t).request('GET', started.url.toString())
    const cookies = [response.headers['set-cookie']].flat().filter(Boolean) as string[]
    expect(cookies.length).toBeGreaterThan(0)
    for (const cookie of cookies) {
      expect(cookie).toMatch(/httponly/i)
      expect(cookie).toMatch(/samesite=(lax|strict)/i)
    }
  })
})

describe('applications that are disabled, deleted or have a new secret', () => {
  async function signedIn() {
    const application = await registerApplication(t.ctx)
    const config = await relyingParty(t, application)
    const person = await t.signIn({ email: uniqueEmail('apps') })
    const browser = new TestBrowser(t)
    const started = await startAuthorization(config, application, { scope: 'openid offline_access' })
    const tokens = await exchangeCode(config, await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person), started)
    return { application, config, person, tokens }
  }

  it('refuses a disabled application’s tokens and requests', async () => {
    const { application, config, tokens } = await signedIn()
    await t.ctx.db.updateTable('oidc_applications').set({ enabled: false }).where('id', '=', application.id).execute()
    expect(await protocolError(client.refreshTokenGrant(config, tokens.refresh_token!))).toBe('invalid_client')
    const page = await new TestBrowser(t).request('GET', authorizeUrl(application.id, { response_type: 'code' }))
    expect(page.body).toContain('content="invalid_client"')
  })

  it('refuses a deleted application, and its grants are gone', async () => {
    const { application, config, tokens, person } = await signedIn()
    await t.ctx.db.deleteFrom('oidc_applications').where('id', '=', application.id).execute()
    expect(await protocolError(client.refreshTokenGrant(config, tokens.refresh_token!))).toBe('invalid_client')
    expect(await protocolError(client.fetchUserInfo(config, tokens.access_token, person.id))).toBeTruthy()
  })

  it('refuses the old secret once it is replaced', async () => {
    const { application, config, tokens } = await signedIn()
    const secret = crypto.randomBytes(32).toString('base64url')
    await t.ctx.db
      .updateTable('oidc_applications')
      .set({ secret_hash: crypto.createHash('sha256').update(secret).digest(), updated_at: new Date() })
      .where('id', '=', application.id)
      .execute()
    expect(await protocolError(client.refreshTokenGrant(config, tokens.refresh_token!))).toBe('invalid_client')
    const renewed = await relyingParty(t, { ...application, secret })
    expect((await client.refreshTokenGrant(renewed, tokens.refresh_token!)).access_token).toBeTruthy()
  })
})

describe('logout requests', () => {
  it('refuses an id_token_hint of another app or another person', async () => {
    const application = await registerApplication(t.ctx)
    const other = await registerApplication(t.ctx, { name: 'Other', postLogoutRedirectUris: ['http://127.0.0.1:5000/bye'] })
    const config = await relyingParty(t, application)
    const person = await t.signIn({ email: uniqueEmail('hint') })
    const browser = new TestBrowser(t)
    const started = await startAuthorization(config, application)
    const tokens = await exchangeCode(config, await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person), started)
    // The hint names `application`, the redirect is registered for `other` only.
    const query = new URLSearchParams({ id_token_hint: tokens.id_token!, client_id: other.id, post_logout_redirect_uri: 'http://127.0.0.1:5000/bye' })
    const response = await browser.request('GET', `/oidc/session/end?${query}`)
    expect(response.statusCode).toBe(400)
    expect(response.body).toContain('content="invalid_request"')
    expect(response.headers.location).toBeUndefined()
  })
})

describe('cross-origin calls from browsers', () => {
  it('answers a public app’s own redirect origin at the token endpoint, and no other origin', async () => {
    const publicApp = await registerApplication(t.ctx, { type: 'public', redirectUris: ['http://localhost:5173/callback'] })
    const preflight = (origin: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url: '/oidc/token',
        headers: { host: 'app.test', origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      })
    const allowed = await preflight('http://localhost:5173')
    expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:5173')
    // The actual request: the public app's client_id decides.
    const denied = await t.app.inject({
      method: 'POST',
      url: '/oidc/token',
      headers: { host: 'app.test', origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: publicApp.id }).toString(),
    })
    expect(denied.headers['access-control-allow-origin']).toBeUndefined()
  })
})
