import * as client from 'openid-client'
import { describe, expect, it } from 'vitest'
import { uniqueEmail, useTestApp } from '../../support/test-app'
import { continueAsSignedIn, exchangeCode, protocolError, registerApplication, relyingParty, startAuthorization, TestBrowser } from '../../support/oidc'

/**
 * Consent: asked once for an app that is not first-party, remembered, recorded in the activity log,
 * listed under Connected apps, and asked again after "Remove access", which also ends the app's tokens.
 */
const t = useTestApp()

describe('consent, remembered and removed', () => {
  it('asks once, remembers, and asks again after the person removes the app’s access', async () => {
    const application = await registerApplication(t.ctx, { name: 'Team Wiki' })
    const config = await relyingParty(t, application)
    const person = await t.signIn({ email: uniqueEmail('consent') })
    const browser = new TestBrowser(t)

    const first = await startAuthorization(config, application, { scope: 'openid profile email offline_access' })
    const login = await browser.follow(first.url.toString())
    const afterLogin = await browser.request('POST', `/api/oidc/interactions/${login.searchParams.get('interaction')}/login`, {
      token: person.accessToken,
      csrf: person.csrfToken,
      body: {},
    })
    const consentPage = await browser.follow(afterLogin.json().data.redirectTo)
    expect(consentPage.pathname).toBe('/consent')
    const details = (await browser.request('GET', `/api/oidc/interactions/${consentPage.searchParams.get('interaction')}/details`)).json().data
    expect(details).toMatchObject({ prompt: 'consent', app: { name: 'Team Wiki', firstParty: false }, scopes: ['openid', 'profile', 'email', 'offline_access'] })
    const tokens = await exchangeCode(config, await continueAsSignedIn(browser, consentPage, person), first)

    const entry = await t.ctx.db.selectFrom('activities').select(['activity', 'kind']).where('user_id', '=', person.id).where('activity', '=', 'Allowed Team Wiki').executeTakeFirst()
    expect(entry).toEqual({ activity: 'Allowed Team Wiki', kind: 'applications' })

    // Remembered: the next sign-in to the app asks nothing, even with offline_access again.
    const second = await startAuthorization(config, application, { scope: 'openid profile email offline_access' })
    const direct = await browser.follow(second.url.toString())
    expect(direct.searchParams.get('code')).toBeTruthy()
    const secondTokens = await exchangeCode(config, direct, second)
    expect(secondTokens.refresh_token).toBeTruthy()

    // Connected apps lists it; removing access ends its tokens and forgets the consent.
    const listed = (await t.request('GET', '/api/auth/applications', { token: person.accessToken })).json().data.applications
    expect(listed).toEqual([expect.objectContaining({ id: application.id, name: 'Team Wiki', scopes: ['openid', 'profile', 'email', 'offline_access'] })])
    expect(listed[0].lastUsedAt).not.toBeNull()
    const removed = await t.request('DELETE', `/api/auth/applications/${application.id}`, { token: person.accessToken, csrf: person.csrfToken })
    expect(removed.statusCode, removed.body).toBe(200)
    expect(await protocolError(client.refreshTokenGrant(config, secondTokens.refresh_token!))).toBe('invalid_grant')
    expect(await protocolError(client.fetchUserInfo(config, tokens.access_token, person.id))).toBe('invalid_token')
    const third = await startAuthorization(config, application)
    expect((await browser.follow(third.url.toString())).pathname).toBe('/consent')
  })

  it('asks only for what is new when an app asks for more', async () => {
    const application = await registerApplication(t.ctx)
    const config = await relyingParty(t, application)
    const person = await t.signIn({ email: uniqueEmail('more') })
    const browser = new TestBrowser(t)
    const first = await startAuthorization(config, application, { scope: 'openid email' })
    await exchangeCode(config, await continueAsSignedIn(browser, await browser.follow(first.url.toString()), person), first)
    const more = await startAuthorization(config, application, { scope: 'openid email roles' })
    const page = await browser.follow(more.url.toString())
    expect(page.pathname).toBe('/consent')
    const tokens = await exchangeCode(config, await continueAsSignedIn(browser, page, person), more)
    expect(tokens.claims()!.roles).toEqual(['CLIENT'])
  })
})
