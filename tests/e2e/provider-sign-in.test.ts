import { createHash, randomBytes } from 'node:crypto'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type UpstreamProvider, startUpstreamProvider } from '../support/upstream-provider'
import { callApi, type SignedInSession, uniqueEmail } from './support/accounts'
import { toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { appCode, turnOnTwoFactor } from './support/two-factor'

/**
 * Signing in with an identity provider in Chromium (contract section 10), against a real OpenID
 * Provider on loopback (a second `oidc-provider`, tests/support/upstream-provider.ts): the button,
 * the provider's pages, back signed in; the existing-account proof before any link; two-factor
 * after a provider sign-in; a failure explained on the sign-in page.
 */
const e2e = browserTests()
let upstream: UpstreamProvider | undefined
const providers: Record<'open' | 'closed', { id: string; name: string }> = {} as never

async function addProvider(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const clientId = `accounts-${body.name as string}`.replace(/\s+/g, '-').toLowerCase()
  const answer = await e2e.accounts.asAdmin<{ identityProvider: { id: string; name: string } }>('POST', '/admin/identity-providers', {
    kind: 'oidc',
    issuer: upstream!.issuer,
    clientId,
    clientSecret: 'upstream-secret',
    ...body,
  })
  if (answer.status !== 201) throw new Error(`adding ${body.name as string} failed: ${answer.status} ${answer.body.message}`)
  const created = answer.body.data.identityProvider
  upstream!.addClient({ clientId, clientSecret: 'upstream-secret', redirectUri: `${e2e.server.url}/api/auth/federation/${created.id}/callback` })
  return created
}

beforeAll(async () => {
  upstream = await startUpstreamProvider()
  providers.open = await addProvider({ name: 'Company SSO', allowSignUp: true, trustEmail: true })
  providers.closed = await addProvider({ name: 'Partner SSO', showOnSignIn: false })
})
afterAll(async () => {
  await upstream?.close()
})

let subjects = 0
const newSubject = () => `e2e-${process.pid}-${++subjects}`

/** The account's linked identities, as its owner sees them (signed in with the password and a recovery code). */
async function identitiesOf(account: { email: string; password: string }, recoveryCode: string) {
  const { mfaToken } = (await callApi<{ mfaToken: string }>(e2e.server, 'POST', '/auth/login', { body: { email: account.email, password: account.password } })).body.data
  const session = (await callApi<SignedInSession>(e2e.server, 'POST', '/auth/login/mfa', { body: { mfaToken, recoveryCode } })).body.data
  return (await callApi<{ identities: { providerName: string }[] }>(e2e.server, 'GET', '/auth/identities', { session })).body.data.identities
}

/** The provider's button on the sign-in page, then its pages, which finish by themselves. */
async function continueWith(page: Page, name: string) {
  await page.getByRole('link', { name: `Continue with ${name}` }).click()
}

describe('signing in with a provider', () => {
  test('the button, the provider, and back signed in (an account made for a new person)', async () => {
    const email = uniqueEmail('provider')
    upstream!.signInAs({ sub: newSubject(), email, email_verified: true, name: 'Grace Hopper' })
    const { page } = await e2e.open()
    await page.goto('/login')
    await continueWith(page, 'Company SSO')
    await page.waitForURL('**/dashboard')
    await toast(page, 'Login successful!').waitFor()
    await page.getByRole('button', { name: 'Account menu for Grace Hopper' }).waitFor()
    // The handoff code left the address bar at /login/complete; nothing of it is in the history.
    expect(page.url()).not.toContain('handoff')
  })

  test('an account with the provider’s address: its owner proves it (password and second step) on the page, and only then is it linked; later, two-factor follows the provider', async () => {
    const account = await e2e.accounts.create({ name: 'Mary Jackson' })
    const { secret, recoveryCodes } = await turnOnTwoFactor(e2e.server, account)
    const subject = newSubject()
    upstream!.signInAs({ sub: subject, email: account.email, email_verified: true })

    const first = await e2e.open()
    await first.page.goto('/login')
    await continueWith(first.page, 'Company SSO')
    await first.page.getByText('Link Company SSO to your account').waitFor()
    expect(await first.page.getByLabel('Email').inputValue()).toBe(account.email)
    // Not linked by the address alone.
    expect(await identitiesOf(account, recoveryCodes[0]!)).toEqual([])
    await first.page.getByLabel('Password', { exact: true }).fill(account.password)
    await first.page.getByRole('button', { name: 'Sign in', exact: true }).click()
    // The step after the one that turned two-factor on (a phone a little fast is accepted).
    await first.page.getByLabel('Code from the app').fill(appCode(secret, 30))
    await first.page.getByRole('button', { name: 'Verify' }).click()
    await first.page.waitForURL('**/dashboard')
    await toast(first.page, 'Company SSO is now linked to your account').waitFor()
    expect((await identitiesOf(account, recoveryCodes[1]!)).map((identity) => identity.providerName)).toEqual(['Company SSO'])

    // Another browser: the provider signs in to the linked account, after the second step, and
    // the person lands on the page they asked for.
    const second = await e2e.open()
    await second.page.goto('/settings')
    await second.page.waitForURL('**/login')
    await continueWith(second.page, 'Company SSO')
    // The app's code of this step is used: a recovery code instead.
    await second.page.getByRole('button', { name: 'Use a recovery code instead' }).click()
    await second.page.getByLabel('Recovery code').fill(recoveryCodes[2]!)
    await second.page.getByRole('button', { name: 'Verify' }).click()
    await second.page.waitForURL('**/settings')
    await second.page.getByRole('button', { name: 'Account menu for Mary Jackson' }).waitFor()
  })

  test('an address whose domain a provider claims offers it in place of the password', async () => {
    const domain = `routed-${process.pid}.test`
    const routed = await addProvider({ name: 'Routed SSO', showOnSignIn: false, emailDomains: [domain] })
    const { page } = await e2e.open()
    await page.goto('/login')
    await page.getByLabel('Email').fill(`ann@${domain}`)
    await page.getByLabel('Email').blur()
    const button = page.getByRole('link', { name: 'Continue with Routed SSO' })
    await button.waitFor()
    expect(await button.getAttribute('href')).toContain(`/api/auth/federation/${routed.id}/start?`)
    expect(await page.getByLabel('Password', { exact: true }).count()).toBe(0)
    await page.getByRole('button', { name: 'Use my password instead' }).click()
    await page.getByLabel('Password', { exact: true }).waitFor()
  })

  test('a failure lands on the sign-in page with its explanation; /login?idp= starts that provider at once', async () => {
    upstream!.signInAs({ sub: newSubject(), email: uniqueEmail('stranger'), email_verified: true })
    const app = await e2e.open()
    app.expectFailedRequests(403)
    const { page } = app
    await page.goto(`/login?idp=${providers.closed.id}`)
    await page.waitForURL('**/login')
    await page.getByRole('alert').filter({ hasText: 'No account uses this Partner SSO identity. Ask an administrator for an invitation.' }).waitFor()
    await page.getByLabel('Password', { exact: true }).waitFor()
  })

  test('an app’s request with idp_hint and prompt=login asks for one sign-in: the provider’s, then back to the app', async () => {
    const redirectUri = 'http://127.0.0.1:9/hinted-app/callback'
    const created = await e2e.accounts.asAdmin<{ application: { id: string } }>('POST', '/admin/applications', {
      name: 'Hinted App',
      type: 'public',
      redirectUris: [redirectUri],
      firstParty: true,
    })
    expect(created.status, created.body.message).toBe(201)
    upstream!.signInAs({ sub: newSubject(), email: uniqueEmail('hinted'), email_verified: true, name: 'Hinted Person' })
    const { page } = await e2e.open()
    await page.route(`${redirectUri}?*`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Hinted App</title>' }))
    const backAtTheApp = page.waitForRequest((request) => request.url().startsWith(`${redirectUri}?`))
    const verifier = randomBytes(32).toString('base64url')
    const query = new URLSearchParams({
      client_id: created.body.data.application.id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid',
      state: 'hinted-state',
      nonce: 'hinted-nonce',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      prompt: 'login',
      idp_hint: providers.open.id,
    })
    await page.goto(`/oidc/auth?${query}`)
    // The provider's pages finish by themselves; nobody types a password here, so reaching the app
    // means the product's own sign-in was not asked for a second time.
    const callback = new URL((await backAtTheApp).url())
    expect(callback.searchParams.get('state')).toBe('hinted-state')
    expect(callback.searchParams.get('code')).toBeTruthy()
  })
})
