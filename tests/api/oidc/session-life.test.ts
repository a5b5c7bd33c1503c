import * as client from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SignedIn, uniqueEmail, useTestApp } from '../../support/test-app'
import {
  continueAsSignedIn,
  exchangeCode,
  protocolError,
  registerApplication,
  relyingParty,
  startAuthorization,
  startLogoutReceiver,
  TestBrowser,
} from '../../support/oidc'
import { resetLink, tokenOf } from '../auth/helpers'
import { as, expectSuccess } from '../helpers/requests'
import { quickSignIn } from '../helpers/users'

/**
 * One life for a session (contract section 9, decision 0402): whatever ends the product session
 * that signed an app in ends the app's access (its refresh and access tokens are refused at the
 * next request) and the app hears so by a signed back-channel logout, retried while it is down.
 */
const t = useTestApp()
let receiver: Awaited<ReturnType<typeof startLogoutReceiver>>
let admin: SignedIn

beforeAll(async () => {
  receiver = await startLogoutReceiver(t)
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
})
afterAll(async () => {
  await receiver?.close()
})

async function signedInToApp(options: { role?: 'CLIENT' | 'DEVELOPER' } = {}) {
  const application = await registerApplication(t.ctx, { backchannelLogoutUri: receiver.uri })
  const config = await relyingParty(t, application)
  const person = await t.signIn({ email: uniqueEmail('app-user'), role: options.role ?? 'CLIENT' })
  const browser = new TestBrowser(t)
  const started = await startAuthorization(config, application, { scope: 'openid email offline_access' })
  const callback = await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person)
  const tokens = await exchangeCode(config, callback, started)
  return { application, config, person, browser, tokens, sid: tokens.claims()!.sid as string }
}

/** The app's tokens are refused from the next request, and a verified logout_token reached it. */
async function expectAppSignedOut(app: Awaited<ReturnType<typeof signedInToApp>>) {
  expect(await protocolError(client.refreshTokenGrant(app.config, app.tokens.refresh_token!))).toBe('invalid_grant')
  expect(await protocolError(client.fetchUserInfo(app.config, app.tokens.access_token, app.person.id))).toBe('invalid_token')
  expect((await client.tokenIntrospection(app.config, app.tokens.access_token)).active).toBe(false)
  await t.runtime.logoutSender.drain()
  await receiver.settled()
  const logout = receiver.received.find((entry) => entry.claims.sid === app.sid)
  expect(logout, 'a back-channel logout for the session').toBeDefined()
  expect(logout!.claims).toMatchObject({ sub: app.person.id, aud: app.application.id, sid: app.sid })
  expect(logout!.claims.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} })
  expect(logout!.claims.nonce).toBeUndefined()
  expect(typeof logout!.claims.jti).toBe('string')
}

describe('what ends the product session ends the app’s access, and the app hears so', () => {
  it('works until then: refresh and UserInfo succeed', async () => {
    const app = await signedInToApp()
    const next = await client.refreshTokenGrant(app.config, app.tokens.refresh_token!)
    expect((await client.fetchUserInfo(app.config, next.access_token, app.person.id)).email).toBe(app.person.email)
  })

  it('sign-out', async () => {
    const app = await signedInToApp()
    expect((await t.request('POST', '/api/auth/logout', { token: app.person.accessToken, csrf: app.person.csrfToken })).statusCode).toBe(200)
    await expectAppSignedOut(app)
  })

  it('sign out of all devices (logout-all)', async () => {
    const app = await signedInToApp()
    expect((await t.request('POST', '/api/auth/logout-all', { token: app.person.accessToken, csrf: app.person.csrfToken })).statusCode).toBe(200)
    await expectAppSignedOut(app)
  })

  it('the device removed from the devices list, from another device', async () => {
    const app = await signedInToApp()
    const other = (await t.login(app.person.email, app.person.password)).json().data
    const sessions = (await t.request('GET', '/api/auth/sessions', { token: other.accessToken })).json().data.sessions as { id: string; current: boolean }[]
    const first = sessions.find((session) => !session.current)!
    expect((await t.request('DELETE', `/api/auth/sessions/${first.id}`, { token: other.accessToken, csrf: other.csrfToken })).statusCode).toBe(200)
    await expectAppSignedOut(app)
  })

  it('the admin’s “sign out everywhere”', async () => {
    const app = await signedInToApp()
    expectSuccess(await as(t, admin).delete(`/api/admin/users/${app.person.id}/sessions`))
    await expectAppSignedOut(app)
  })

  it('a suspension', async () => {
    const app = await signedInToApp()
    expectSuccess(await as(t, admin).put(`/api/admin/users/${app.person.id}`, { status: 'SUSPENDED' }))
    await expectAppSignedOut(app)
  })

  it('a role change', async () => {
    const app = await signedInToApp()
    expectSuccess(await as(t, admin).put(`/api/admin/users/${app.person.id}`, { role: 'MODERATOR' }))
    await expectAppSignedOut(app)
  })

  it('a delete (the account made inactive first, as the product requires)', async () => {
    const app = await signedInToApp()
    expectSuccess(await as(t, admin).put(`/api/admin/users/${app.person.id}`, { status: 'INACTIVE' }))
    expectSuccess(await as(t, admin).delete(`/api/admin/users/${app.person.id}`))
    expect(await protocolError(client.refreshTokenGrant(app.config, app.tokens.refresh_token!))).toBe('invalid_grant')
    await t.runtime.logoutSender.drain()
    await receiver.settled()
    expect(receiver.received.some((entry) => entry.claims.sid === app.sid && entry.claims.sub === app.person.id)).toBe(true)
  })

  it('a password reset', async () => {
    const app = await signedInToApp()
    await t.request('POST', '/api/auth/forgot-password', { body: { email: app.person.email } })
    const token = tokenOf(await resetLink(t, app.person.email))
    const password = 'A-New-Password-2026!'
    expect((await t.request('POST', `/api/auth/reset-password/${token}`, { body: { password, confirmPassword: password } })).statusCode).toBe(200)
    await expectAppSignedOut(app)
  })

  it('a refresh token of the product reused (the session is revoked as stolen)', async () => {
    const app = await signedInToApp()
    const first = await t.request('POST', '/api/auth/refresh-token', { body: { refreshToken: app.person.refreshToken } })
    expect(first.statusCode).toBe(200)
    t.clock.advance(120)
    await t.request('POST', '/api/auth/refresh-token', { body: { refreshToken: app.person.refreshToken } })
    await expectAppSignedOut(app)
  })

  it('keeps another person’s app session alive', async () => {
    const mine = await signedInToApp()
    const theirs = await signedInToApp()
    expect((await t.request('POST', '/api/auth/logout', { token: mine.person.accessToken, csrf: mine.person.csrfToken })).statusCode).toBe(200)
    const next = await client.refreshTokenGrant(theirs.config, theirs.tokens.refresh_token!)
    expect(next.access_token).toBeTruthy()
  })

  it('retries the back-channel logout while the app is down', async () => {
    const flaky = await startLogoutReceiver(t, { failFirst: 2 })
    try {
      const application = await registerApplication(t.ctx, { backchannelLogoutUri: flaky.uri })
      const config = await relyingParty(t, application)
      const person = await t.signIn({ email: uniqueEmail('flaky') })
      const browser = new TestBrowser(t)
      const started = await startAuthorization(config, application)
      const tokens = await exchangeCode(config, await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person), started)
      await t.request('POST', '/api/auth/logout', { token: person.accessToken, csrf: person.csrfToken })
      for (let attempt = 0; attempt < 3; attempt++) {
        // A failed delivery is due again after 1, then 2 seconds: moved to now, as if that time had passed.
        await t.ctx.db.updateTable('oidc_logout_jobs').set({ run_after: new Date() }).execute()
        await t.runtime.logoutSender.drain()
        await flaky.settled()
      }
      expect(flaky.received.map((entry) => entry.claims.sid)).toEqual([tokens.claims()!.sid])
      expect(await t.ctx.db.selectFrom('oidc_logout_jobs').select('id').execute()).toEqual([])
    } finally {
      await flaky.close()
    }
  })
})

/** Opens the app's sign-out address, checks the confirmation names the app, and confirms it as its "Sign out" button does. */
async function confirmSignOut(browser: TestBrowser, endSession: URL) {
  const confirm = await browser.request('GET', endSession.toString())
  expect(confirm.statusCode).toBe(200)
  expect(confirm.body).toContain('name="oidc-app-name" content="Team Wiki"')
  const action = /name="oidc-logout-action" content="([^"]+)"/.exec(confirm.body)![1]!
  const xsrf = /name="oidc-logout-xsrf" content="([^"]+)"/.exec(confirm.body)![1]!
  return browser.request('POST', action.replace(/&amp;/g, '&'), { form: { xsrf, logout: 'yes' } })
}

describe('the app’s own sign-out, and the single sign-on that the product session carries', () => {
  it('RP-initiated logout ends the provider session and the product session it came from', async () => {
    const app = await signedInToApp()
    const endSession = client.buildEndSessionUrl(app.config, { id_token_hint: app.tokens.id_token!, post_logout_redirect_uri: 'http://127.0.0.1:4000/signed-out' })
    const done = await confirmSignOut(app.browser, endSession)
    expect(done.statusCode).toBe(303)
    expect(String(done.headers.location)).toMatch(/^http:\/\/127\.0\.0\.1:4000\/signed-out/)
    // The product session is over too, and the app's tokens with it.
    expect((await t.request('GET', '/api/auth/me', { token: app.person.accessToken })).statusCode).toBe(401)
    await expectAppSignedOut(app)
  })

  it('without a post-logout redirect, ends on our "signed out" page, which names the app', async () => {
    const app = await signedInToApp()
    const endSession = client.buildEndSessionUrl(app.config, { id_token_hint: app.tokens.id_token! })
    const done = await confirmSignOut(app.browser, endSession)
    expect(done.statusCode).toBe(303)
    const success = new URL(String(done.headers.location), 'http://localhost')
    expect(success.pathname).toBe('/oidc/session/end/success')
    const page = await app.browser.request('GET', `${success.pathname}${success.search}`)
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('name="oidc-signed-out" content="Team Wiki"')
    await expectAppSignedOut(app)
  })

  it('answers prompt=none with login_required when nobody is signed in, and signs in silently when someone is', async () => {
    const application = await registerApplication(t.ctx, { firstParty: true })
    const config = await relyingParty(t, application)
    const browser = new TestBrowser(t)
    const silent = await startAuthorization(config, application, { prompt: 'none' })
    const refused = await browser.follow(silent.url.toString())
    expect(refused.searchParams.get('error')).toBe('login_required')

    const person = await t.signIn({ email: uniqueEmail('sso') })
    const first = await startAuthorization(config, application)
    await exchangeCode(config, await continueAsSignedIn(browser, await browser.follow(first.url.toString()), person), first)
    const again = await startAuthorization(config, application, { prompt: 'none' })
    const landing = await browser.follow(again.url.toString())
    expect(landing.searchParams.get('code')).toBeTruthy()

    // Once the product session ends, single sign-on ends with it.
    await t.request('POST', '/api/auth/logout', { token: person.accessToken, csrf: person.csrfToken })
    const after = await startAuthorization(config, application, { prompt: 'none' })
    expect((await browser.follow(after.url.toString())).searchParams.get('error')).toBe('login_required')
  })

  it('asks for a new sign-in on prompt=login and an exceeded max_age, even with a live session', async () => {
    const application = await registerApplication(t.ctx, { firstParty: true })
    const config = await relyingParty(t, application)
    const browser = new TestBrowser(t)
    const person = await t.signIn({ email: uniqueEmail('fresh') })
    const first = await startAuthorization(config, application)
    await exchangeCode(config, await continueAsSignedIn(browser, await browser.follow(first.url.toString()), person), first)

    for (const params of [{ prompt: 'login' }, { max_age: '1' }] as Record<string, string>[]) {
      const again = await startAuthorization(config, application, params)
      const page = await browser.follow(again.url.toString())
      expect(page.pathname).toBe('/login')
      const uid = page.searchParams.get('interaction')!
      const details = (await browser.request('GET', `/api/oidc/interactions/${uid}/details`)).json().data
      expect(details.freshSignIn).toBe(true)
      t.clock.advance(5)
      const stale = await browser.request('POST', `/api/oidc/interactions/${uid}/login`, { token: person.accessToken, csrf: person.csrfToken, body: {} })
      expect(stale.statusCode).toBe(409)
      expect(stale.json().code).toBe('FRESH_SIGN_IN_REQUIRED')
      // A new sign-in passes.
      const fresh = (await t.login(person.email, person.password)).json().data
      const step = await browser.request('POST', `/api/oidc/interactions/${uid}/login`, { token: fresh.accessToken, csrf: fresh.csrfToken, body: {} })
      expect(step.statusCode, step.body).toBe(200)
    }
  })
})
