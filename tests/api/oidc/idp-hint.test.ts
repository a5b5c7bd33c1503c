import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type UpstreamProvider, startUpstreamProvider } from '../../support/upstream-provider'
import { continueAsSignedIn, exchangeCode, registerApplication, relyingParty, startAuthorization, TestBrowser } from '../../support/oidc'
import { type SignedIn, useTestApp } from '../../support/test-app'
import { ProviderBrowser } from '../helpers/provider-browser'
import { as, expectFailure, expectSuccess } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'

/**
 * `idp_hint` on an app's authorization request (contract section 10, decision 0515): the sign-in
 * page is told to start that provider at once, and the person comes back through the app's own
 * request, signed in by the provider; the ID token says so (`amr: ["fed"]`).
 */
const t = useTestApp()

let admin: SignedIn
let upstream: UpstreamProvider
let provider: { id: string }

beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
  upstream = await startUpstreamProvider()
  provider = expectSuccess(
    await as(t, admin).post('/api/admin/identity-providers', {
      kind: 'oidc',
      name: 'Company SSO',
      issuer: upstream.issuer,
      clientId: 'accounts-hint',
      clientSecret: 'upstream-secret',
    }),
    201,
  ).data.identityProvider
  upstream.addClient({ clientId: 'accounts-hint', clientSecret: 'upstream-secret', redirectUri: `http://app.test/api/auth/federation/${provider.id}/callback` })
})
afterAll(async () => {
  await upstream?.close()
})

describe('an app’s idp_hint', () => {
  it('sends the sign-in page to that provider, and the person back through the app’s request', async () => {
    const person = await quickUser(t, { name: 'Hinted Person' })
    const subject = `hinted-${process.pid}`
    await t.ctx.db.insertInto('federated_identities').values({ provider_id: provider.id, user_id: person.id, subject, email: null, linked_at: t.clock.now() }).execute()
    upstream.signInAs({ sub: subject })

    const application = await registerApplication(t.ctx, { firstParty: true })
    const config = await relyingParty(t, application)
    const appBrowser = new TestBrowser(t)
    const started = await startAuthorization(config, application, { idp_hint: provider.id })
    const page = await appBrowser.follow(started.url.toString())
    expect(page.pathname).toBe('/login')
    const uid = page.searchParams.get('interaction')!
    expect(page.searchParams.get('idp')).toBe(provider.id)

    // What the sign-in page does with `idp`: that provider's start, back to the app's request.
    const back = `/login?interaction=${uid}`
    const providerBrowser = new ProviderBrowser(t)
    const handoff = await providerBrowser.signIn(provider.id, `?returnTo=${encodeURIComponent(back)}`)
    const signedIn = expectSuccess(await providerBrowser.complete(handoff)).data
    expect(signedIn).toMatchObject({ user: { id: person.id }, returnTo: back })

    const callback = await continueAsSignedIn(appBrowser, new URL(back, t.config.appUrl), signedIn)
    const claims = (await exchangeCode(config, callback, started)).claims()!
    expect(claims.sub).toBe(person.id)
    expect(claims.amr).toEqual(['fed'])
  })

  it('with prompt=login, takes the provider sign-in made for this request as the new sign-in: one sign-in, not two', async () => {
    const person = await quickUser(t, { name: 'Prompted Person' })
    const subject = `prompted-${process.pid}`
    await t.ctx.db.insertInto('federated_identities').values({ provider_id: provider.id, user_id: person.id, subject, email: null, linked_at: t.clock.now() }).execute()
    // Signed in before the app's request: that sign-in is too old for prompt=login.
    const before = expectSuccess(await t.login(person.email, person.password)).data as { accessToken: string; csrfToken: string }
    t.clock.advance(5)

    const application = await registerApplication(t.ctx, { firstParty: true })
    const config = await relyingParty(t, application)
    const appBrowser = new TestBrowser(t)
    const started = await startAuthorization(config, application, { idp_hint: provider.id, prompt: 'login' })
    const page = await appBrowser.follow(started.url.toString())
    expect(page.searchParams.get('idp')).toBe(provider.id)
    const uid = page.searchParams.get('interaction')!
    const details = async (who?: { accessToken: string }) =>
      expectSuccess(await appBrowser.request('GET', `/api/oidc/interactions/${uid}/details`, who ? { token: who.accessToken } : {})).data
    // Signed out, or signed in before the request: the page must ask for a new sign-in.
    expect((await details()).freshSignIn).toBe(true)
    expect((await details(before)).freshSignIn).toBe(true)
    expect((await details({ accessToken: 'not-a-token' })).freshSignIn).toBe(true)
    const stale = await appBrowser.request('POST', `/api/oidc/interactions/${uid}/login`, { token: before.accessToken, csrf: before.csrfToken, body: {} })
    expectFailure(stale, 409, undefined, 'FRESH_SIGN_IN_REQUIRED')

    // The provider sign-in the page starts for this request is that new sign-in: not asked again.
    upstream.signInAs({ sub: subject })
    const back = `/login?interaction=${uid}`
    const providerBrowser = new ProviderBrowser(t)
    const signedIn = expectSuccess(await providerBrowser.complete(await providerBrowser.signIn(provider.id, `?returnTo=${encodeURIComponent(back)}`))).data
    expect(signedIn).toMatchObject({ user: { id: person.id }, returnTo: back })
    expect((await details(signedIn)).freshSignIn).toBe(false)
    const steps: string[] = []
    const callback = await continueAsSignedIn(appBrowser, new URL(back, t.config.appUrl), signedIn, { steps })
    expect(steps).toEqual(['login'])
    const claims = (await exchangeCode(config, callback, started)).claims()!
    expect(claims.sub).toBe(person.id)
    expect(claims.amr).toEqual(['fed'])
    expect(claims.auth_time).toBeGreaterThanOrEqual(Math.floor(t.clock.now().getTime() / 1000) - 1)
  })

  it('is no hint when it names no enabled provider: the sign-in page as always', async () => {
    const application = await registerApplication(t.ctx, { firstParty: true })
    const config = await relyingParty(t, application)
    for (const hint of ['idp_unknown', provider.id]) {
      if (hint === provider.id) expectSuccess(await as(t, admin).put(`/api/admin/identity-providers/${provider.id}`, { enabled: false }))
      const started = await startAuthorization(config, application, { idp_hint: hint })
      const page = await new TestBrowser(t).follow(started.url.toString())
      expect(page.pathname).toBe('/login')
      expect(page.searchParams.has('idp')).toBe(false)
    }
    expectSuccess(await as(t, admin).put(`/api/admin/identity-providers/${provider.id}`, { enabled: true }))
  })
})
