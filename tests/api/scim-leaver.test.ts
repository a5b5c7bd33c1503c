import * as client from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { continueAsSignedIn, exchangeCode, protocolError, registerApplication, relyingParty, startAuthorization, startLogoutReceiver, TestBrowser } from '../support/oidc'
import { type SignedIn, useTestApp } from '../support/test-app'
import { scimCredential, scimRequest } from './helpers/scim'

/**
 * A leaver (contract section 13): a person who registered themselves, signed in to the product and
 * to an app through it, is found by Entra ID by their address, and set `active: "False"`. At the
 * next request their session, the app's refresh token, access token and introspection all fail,
 * and the app hears a back-channel logout it verifies against the JWKS.
 */
const t = useTestApp()
let receiver: Awaited<ReturnType<typeof startLogoutReceiver>>

beforeAll(async () => {
  receiver = await startLogoutReceiver(t)
})

afterAll(async () => {
  await receiver?.close()
})

describe('a leaver deactivated by the directory', () => {
  let person: SignedIn
  let application: Awaited<ReturnType<typeof registerApplication>>
  let config: client.Configuration
  let appTokens: Awaited<ReturnType<typeof exchangeCode>>

  beforeAll(async () => {
    person = await t.signIn({ name: 'Lea Ver' })
    application = await registerApplication(t.ctx, { name: 'Team Wiki', backchannelLogoutUri: receiver.uri })
    config = await relyingParty(t, application)
    const browser = new TestBrowser(t)
    const started = await startAuthorization(config, application, { scope: 'openid profile email offline_access' })
    const callback = await continueAsSignedIn(browser, await browser.follow(started.url.toString()), person)
    appTokens = await exchangeCode(config, callback, started)
  })

  it('is found by their address as userName, and deactivated with active "False"', async () => {
    const scim = scimRequest(t, await scimCredential(t, 'Entra ID'))
    const found = (await scim.get(`/Users?filter=${encodeURIComponent(`userName eq "${person.email.toUpperCase()}"`)}`)).json()
    expect(found).toMatchObject({ totalResults: 1, Resources: [{ id: person.id, userName: person.email, active: true }] })
    const patched = await scim.patch(`/Users/${person.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    })
    expect(patched.json()).toMatchObject({ active: false })
  })

  it('loses the session in the product at the next request', async () => {
    expect((await t.request('GET', '/api/auth/me', { token: person.accessToken })).statusCode).toBe(401)
    expect((await t.request('POST', '/api/auth/refresh-token', { body: { refreshToken: person.refreshToken } })).statusCode).toBe(401)
  })

  it('loses the app: refresh token, access token and introspection fail, and the app hears a back-channel logout', async () => {
    expect(await protocolError(client.refreshTokenGrant(config, appTokens.refresh_token!))).toBe('invalid_grant')
    expect(await protocolError(client.fetchUserInfo(config, appTokens.access_token, person.id))).toBe('invalid_token')
    expect((await client.tokenIntrospection(config, appTokens.access_token)).active).toBe(false)
    await t.runtime.logoutSender.drain()
    await receiver.settled()
    const logout = receiver.received.find((entry) => entry.claims.sub === person.id)
    expect(logout, 'a back-channel logout for the leaver').toBeDefined()
    expect(logout!.claims).toMatchObject({ aud: application.id, sid: appTokens.claims()!.sid })
  })
})
