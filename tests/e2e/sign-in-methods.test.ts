import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type UpstreamProvider, startUpstreamProvider } from '../support/upstream-provider'
import { type SignedInSession, callApi, signInThroughApi, uniqueEmail } from './support/accounts'
import { openSignedIn, toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { generateSigningKey } from '../support/simplesamlphp'
import { identityProviderMetadata } from '../api/helpers/saml-responses'

/**
 * Sign-in methods in Chromium, against a real second OpenID Provider on loopback (a separate
 * `oidc-provider` standing in for the company's): the admin adds it on the Sign-in methods page
 * and copies the redirect URI into the upstream's client; a person's identity linked through it
 * shows in Profile → Security, where they unlink it; Link sends the browser to the provider after
 * the password; an account the provider made (without a password) deletes itself after a fresh
 * sign-in, offered a new one with its provider; the admin disables and deletes the provider. The
 * link itself (and any provider sign-in) finishes on the sign-in flow's /login/complete page, so
 * it is made here by HTTP, as a browser would.
 */
const e2e = browserTests()
let upstream: UpstreamProvider
let providerId = ''
const CLIENT = { clientId: 'accounts-e2e', clientSecret: 'upstream-secret-e2e' }

beforeAll(async () => {
  upstream = await startUpstreamProvider()
})
afterAll(async () => {
  await upstream?.close()
})

/** A browser's cookie jar for one origin, from Set-Cookie lines. */
class Jar {
  private readonly cookies = new Map<string, string>()
  keep(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair!.indexOf('=')
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim())
    }
  }
  get header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
}

/**
 * A browser's way through the provider, by HTTP: from where our app sent it (`first`, with the
 * transaction cookie in `ours`), the provider's redirects, our callback, then the handoff the
 * /login/complete page makes. The handoff's answer.
 */
async function throughProvider(first: string, ours: Jar): Promise<Record<string, unknown>> {
  const theirs = new Jar()
  let next = first
  for (let hops = 0; !next.startsWith(e2e.server.url); hops += 1) {
    if (hops > 10) throw new Error('too many redirects at the provider')
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: theirs.header } })
    theirs.keep(response)
    const location = response.headers.get('location')
    if (!location) throw new Error(`the provider stopped at ${next}: ${response.status}`)
    next = new URL(location, next).href
  }
  const callback = await fetch(next, { redirect: 'manual', headers: { cookie: ours.header } })
  ours.keep(callback)
  const handoff = new URL(callback.headers.get('location')!, e2e.server.url)
  expect(handoff.pathname).toBe('/login/complete')
  const completed = await fetch(`${e2e.server.url}/api/auth/federation/complete`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', cookie: ours.header },
    body: JSON.stringify({ handoff: handoff.hash.replace(/^#handoff=/, '') }),
  })
  const body = (await completed.json()) as { success: boolean; data: Record<string, unknown> }
  expect(body.success, JSON.stringify(body)).toBe(true)
  return body.data
}

/** Links the upstream identity now set with `signInAs` to the account: the password to start, then the provider. */
async function linkByHttp(account: { email: string; password: string }) {
  const session = await signInThroughApi(e2e.server, account.email, account.password)
  const ours = new Jar()
  const started = await fetch(`${e2e.server.url}/api/auth/identities/${providerId}/link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session.accessToken}`, 'X-CSRF-Token': session.csrfToken },
    body: JSON.stringify({ password: account.password }),
  })
  expect(started.status).toBe(200)
  ours.keep(started)
  const done = await throughProvider(((await started.json()) as { data: { url: string } }).data.url, ours)
  expect(done).toMatchObject({ linked: true, identity: { providerId } })
}

/** Signs in (and up) with the provider by HTTP as the person now set with `signInAs`: the session it gives. */
async function providerSignInByHttp(): Promise<SignedInSession> {
  const ours = new Jar()
  const started = await fetch(`${e2e.server.url}/api/auth/federation/${providerId}/start?returnTo=%2Fprofile`, { redirect: 'manual' })
  expect(started.status).toBe(302)
  ours.keep(started)
  return (await throughProvider(started.headers.get('location')!, ours)) as unknown as SignedInSession
}

/** Opens `target` with this session stored where the app keeps it (as `openSignedIn` does after a password sign-in). */
async function openWithSession(page: Page, session: SignedInSession, target: string) {
  const blank = `${e2e.server.url}/__blank-for-storage`
  await page.route(blank, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,">' }))
  await page.goto(blank)
  await page.unroute(blank)
  await page.evaluate((stored) => {
    localStorage.setItem('user', JSON.stringify(stored.user))
    localStorage.setItem('refreshToken', stored.refreshToken)
    localStorage.setItem('csrfToken', stored.csrfToken)
    localStorage.setItem('accessToken', stored.accessToken)
  }, session)
  await page.goto(target)
}

async function rowActions(page: Page, name: string, action: string) {
  await page.getByRole('button', { name: `Actions for ${name}` }).click()
  await page.getByRole('menuitem', { name: action }).click()
}

describe('sign-in methods', () => {
  test('the admin adds an OpenID Connect provider and copies its redirect URI into the provider', async () => {
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, e2e.server.admin, '/admin')
    await page.getByRole('navigation').getByRole('link', { name: 'Sign-in methods' }).first().click()
    await page.getByRole('heading', { level: 1, name: 'Sign-in methods' }).waitFor()
    await page.getByText('No sign-in methods yet').waitFor()

    await page.getByRole('button', { name: 'Add sign-in method' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add a sign-in method' })
    await dialog.getByLabel('Name').fill('Company SSO')
    await dialog.getByLabel('Issuer').fill(upstream.issuer)
    await dialog.getByLabel('Client ID').fill(CLIENT.clientId)
    await dialog.getByLabel('Client secret').fill(CLIENT.clientSecret)
    await dialog.getByLabel(/^Email domains/).fill('sso-e2e.example.com')
    await dialog.getByRole('checkbox', { name: 'Create accounts for new people' }).check()
    await dialog.getByRole('checkbox', { name: 'Trust the provider’s verified email addresses' }).check()
    await dialog.getByRole('button', { name: 'Add sign-in method' }).click()

    const added = page.getByRole('dialog', { name: 'Sign-in method added' })
    const redirectUri = await added.getByRole('textbox', { name: 'Redirect URI' }).inputValue()
    const match = new RegExp(`^${e2e.server.url.replace(/[.:/]/g, '\\$&')}/api/auth/federation/([^/]+)/callback$`).exec(redirectUri)
    expect(match, redirectUri).not.toBeNull()
    providerId = match![1]!
    upstream.addClient({ ...CLIENT, redirectUri })
    await added.getByRole('button', { name: 'Done' }).click()

    const row = page.getByRole('row').filter({ hasText: 'Company SSO' })
    await row.getByText('OpenID Connect').waitFor()
    await row.getByText('Enabled').waitFor()
    await row.getByText('sso-e2e.example.com').waitFor()
    // The sign-in page now offers it.
    const listed = await callApi<{ identityProviders: { id: string; name: string }[] }>(e2e.server, 'GET', '/auth/identity-providers')
    expect(listed.body.data.identityProviders).toEqual([{ id: providerId, name: 'Company SSO', kind: 'oidc' }])
  })

  test('a linked identity shows in Profile → Security and is unlinked there; Link goes to the provider after the password', async () => {
    expect(providerId, 'the provider added by the test before').not.toBe('')
    const account = await e2e.accounts.create({ name: 'Linda Linker' })
    const upstreamEmail = uniqueEmail('linda-at-sso')
    upstream.signInAs({ sub: `e2e-linda-${Date.now()}`, email: upstreamEmail, email_verified: true, name: 'Linda Linker' })
    await linkByHttp(account)

    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, account, '/profile?tab=security')
    const section = page.getByRole('region', { name: 'Linked sign-in methods' })
    const item = section.getByRole('list', { name: 'Linked sign-in methods' }).getByRole('listitem')
    await item.getByText('Company SSO').waitFor()
    await item.getByText(upstreamEmail).waitFor()

    await section.getByRole('button', { name: 'Unlink Company SSO' }).click()
    const confirm = page.getByRole('dialog', { name: 'Unlink this sign-in method?' })
    await confirm.getByRole('button', { name: 'Unlink' }).click()
    await toast(page, 'Company SSO unlinked').waitFor()
    await section.getByText('No sign-in method is linked.').waitFor()
    const after = await callApi<{ identities: unknown[] }>(e2e.server, 'GET', '/auth/identities', {
      session: await signInThroughApi(e2e.server, account.email, account.password),
    })
    expect(after.body.data.identities).toEqual([])

    // Link: the password first, then the browser goes to the provider's authorization endpoint.
    // (It would come back through /login/complete, the sign-in flow's page; answered here instead.)
    const authorization = page.waitForRequest((request) => request.url().startsWith(upstream.issuer))
    await page.route(`${upstream.issuer}/**`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Upstream</title>' }))
    await section.getByRole('button', { name: 'Link Company SSO' }).click()
    const link = page.getByRole('dialog', { name: 'Link Company SSO' })
    await link.getByLabel('Current password').fill(account.password)
    await link.getByRole('button', { name: 'Continue' }).click()
    const request = new URL((await authorization).url())
    expect(request.searchParams.get('client_id')).toBe(CLIENT.clientId)
    expect(request.searchParams.get('redirect_uri')).toBe(`${e2e.server.url}/api/auth/federation/${providerId}/callback`)
    expect(request.searchParams.get('code_challenge_method')).toBe('S256')
  })

  test('an account made by the provider has no password: it deletes itself after a fresh sign-in, offered a new one with its provider', async () => {
    expect(providerId, 'the provider added by the first test').not.toBe('')
    const email = uniqueEmail('pat-from-sso')
    upstream.signInAs({ sub: `e2e-pat-${Date.now()}`, email, email_verified: true, name: 'Pat Provider' })
    const session = await providerSignInByHttp()
    expect(session.user).toMatchObject({ email, name: 'Pat Provider' })

    const { page } = await e2e.open()
    await openWithSession(page, session, '/profile?tab=security')
    // Back from a provider, the Security tab is the one open.
    const section = page.getByRole('region', { name: 'Linked sign-in methods' })
    await section.getByText(/Your account has no password/).waitFor()
    await page.getByRole('button', { name: 'Delete account' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' })
    await dialog.getByText(/sign in again with Company SSO/).waitFor()
    expect(await dialog.getByLabel('Current password').count()).toBe(0)

    // "Sign in again" starts the provider's sign-in, coming back to the Security tab.
    const start = page.waitForRequest((request) => request.url().includes(`/api/auth/federation/${providerId}/start`))
    await page.route(`**/api/auth/federation/${providerId}/start?*`, (route) => route.fulfill({ status: 302, headers: { location: '/profile?tab=security' } }))
    await dialog.getByRole('button', { name: 'Sign in again with Company SSO' }).click()
    expect(new URL((await start).url()).searchParams.get('returnTo')).toBe('/profile?tab=security')
    await page.waitForURL('**/profile?tab=security')

    // Signed in moments ago: the deletion goes through without a password.
    await page.getByRole('button', { name: 'Delete account' }).click()
    await page.getByRole('dialog', { name: 'Delete your account?' }).getByRole('button', { name: 'Delete my account' }).click()
    await page.waitForURL('**/login')
    await toast(page, 'Your account has been deleted').waitFor()
    await expect(e2e.accounts.findUser(email)).rejects.toThrow()
  })

  test('the admin disables, enables and deletes the provider, with a confirmation', async () => {
    expect(providerId, 'the provider added by the first test').not.toBe('')
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, e2e.server.admin, '/admin/sign-in-methods')
    const row = page.getByRole('row').filter({ hasText: 'Company SSO' })
    await row.getByText('Enabled').waitFor()
    await rowActions(page, 'Company SSO', 'Disable')
    await row.getByText('Disabled').waitFor()
    expect((await callApi<{ identityProviders: unknown[] }>(e2e.server, 'GET', '/auth/identity-providers')).body.data.identityProviders).toEqual([])
    await rowActions(page, 'Company SSO', 'Enable')
    await row.getByText('Enabled').waitFor()

    await rowActions(page, 'Company SSO', 'Delete')
    const confirm = page.getByRole('dialog', { name: 'Delete sign-in method' })
    await confirm.getByText(/Delete Company SSO\?/).waitFor()
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await toast(page, 'Sign-in method deleted').waitFor()
    await page.getByText('No sign-in methods yet').waitFor()
  })

  test('the admin adds a SAML provider: pastes its metadata, copies the entity ID and ACS URL, and the metadata link answers', async () => {
    const key = await generateSigningKey('E2E identity provider')
    const metadata = identityProviderMetadata('https://idp.e2e.example/metadata', 'https://idp.e2e.example/sso', key.certificate)
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, e2e.server.admin, '/admin/sign-in-methods')
    await page.getByRole('button', { name: 'Add sign-in method' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add a sign-in method' })
    await dialog.getByRole('radio', { name: 'SAML 2.0' }).check()
    await dialog.getByText(/shown once it is added/).waitFor()
    expect(await dialog.getByLabel('Client ID').count()).toBe(0)
    await dialog.getByLabel('Name', { exact: true }).fill('Company SAML')
    await dialog.getByLabel('Identity provider metadata (XML)').fill(metadata)
    await dialog.getByRole('button', { name: 'Add sign-in method' }).click()

    const added = page.getByRole('dialog', { name: 'Sign-in method added' })
    const entityId = await added.getByRole('textbox', { name: 'Entity ID' }).inputValue()
    const match = new RegExp(`^${e2e.server.url.replace(/[.:/]/g, '\\$&')}/api/auth/federation/([^/]+)/saml$`).exec(entityId)
    expect(match, entityId).not.toBeNull()
    expect(await added.getByRole('textbox', { name: 'ACS URL (assertion consumer service)' }).inputValue()).toBe(entityId)
    const link = await added.getByRole('link', { name: 'This product’s SAML metadata' }).getAttribute('href')
    expect(link).toBe(`${entityId}/metadata`)
    const served = await fetch(link!)
    expect(served.status).toBe(200)
    expect(await served.text()).toContain(`entityID="${entityId}"`)
    await added.getByRole('button', { name: 'Done' }).click()
    await page.getByRole('row').filter({ hasText: 'Company SAML' }).getByText('SAML 2.0').waitFor()
    expect((await e2e.accounts.asAdmin('DELETE', `/admin/identity-providers/${match![1]}`)).status).toBe(200)
  })
})
