import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type SimpleSamlPhp, simpleSamlPhpMissing, startSimpleSamlPhp } from '../support/simplesamlphp'
import { callApi, uniqueEmail } from './support/accounts'
import { storedSession, toast } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * Signing in over SAML 2.0 in Chromium (contract section 10), against a real identity provider:
 * SimpleSAMLphp (tests/support/simplesamlphp.ts), on 127.0.0.1 while the app runs on `localhost`,
 * so that its response arrives by a cross-site POST as it does from Entra ID or Okta. An admin adds
 * the provider through the API by pasting SimpleSAMLphp's metadata, SimpleSAMLphp is told the
 * product's entity ID and ACS URL (as an admin enters them in Entra ID or Okta, from
 * docs/identity-providers.md), and people sign in with the button on the sign-in page and
 * SimpleSAMLphp's own login form: a new person gets an account, named from the assertion's
 * attributes, and a role from the groups attribute by a role rule.
 */
const missing = simpleSamlPhpMissing()
const e2e = browserTests({ host: 'localhost' })
let idp: SimpleSamlPhp | undefined
let provider: { id: string; name: string } | undefined

beforeAll(async () => {
  if (missing) return
  idp = await startSimpleSamlPhp()
  const answer = await e2e.accounts.asAdmin<{ identityProvider: { id: string; name: string } }>('POST', '/admin/identity-providers', {
    kind: 'saml',
    name: 'Company SAML',
    samlMetadataXml: idp.metadataXml,
    allowSignUp: true,
    trustEmail: true,
    roleRules: [{ claim: 'groups', value: 'engineering', role: 'DEVELOPER' }],
  })
  if (answer.status !== 201) throw new Error(`adding the SAML provider failed: ${answer.status} ${answer.body.message}`)
  provider = answer.body.data.identityProvider
  // What the docs tell an admin to enter at the identity provider: one URL, entity ID and ACS.
  const entityId = `${e2e.server.url}/api/auth/federation/${provider.id}/saml`
  idp.addServiceProvider({ entityId, acsUrl: entityId })
})
afterAll(async () => {
  await idp?.stop()
})

let people = 0
/** A person at the identity provider, with a fresh address. */
function person(name: string, groups: string[]) {
  const email = uniqueEmail('saml')
  const user = { username: `saml-${process.pid}-${++people}`, password: 'Quartz-Harbor-62!', attributes: { mail: [email], displayName: [name], groups } }
  idp!.addUser(user)
  return { ...user, email }
}

/** The provider's button on the sign-in page, then SimpleSAMLphp's login form. */
async function signInThroughSimpleSamlPhp(page: Page, user: { username: string; password: string }) {
  await page.goto('/login')
  await page.getByRole('link', { name: 'Continue with Company SAML' }).click()
  await page.waitForURL(`${idp!.url}/**`)
  await page.getByLabel('Username').fill(user.username)
  await page.getByLabel('Password').fill(user.password)
  await page.getByRole('button', { name: 'Login' }).click()
  await page.waitForURL('**/dashboard')
}

describe.skipIf(missing)(`signing in with a SAML identity provider${missing ? ` (skipped: ${missing})` : ''}`, () => {
  test('the provider, added by pasting its metadata, publishes the product’s SP metadata with its entity ID and ACS URL', async () => {
    const entityId = `${e2e.server.url}/api/auth/federation/${provider!.id}/saml`
    const answer = await fetch(`${entityId}/metadata`)
    expect(answer.status).toBe(200)
    const metadata = await answer.text()
    expect(metadata).toContain(`entityID="${entityId}"`)
    expect(metadata).toMatch(new RegExp(`<(\\w+:)?AssertionConsumerService[^>]*Location="${entityId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`))
  })

  test('the button, SimpleSAMLphp’s login form, and back signed in to a new account named from the assertion', async () => {
    const grace = person('Grace Hopper', ['staff'])
    const { page } = await e2e.open()
    await signInThroughSimpleSamlPhp(page, grace)
    await toast(page, 'Login successful!').waitFor()
    await page.getByRole('button', { name: 'Account menu for Grace Hopper' }).waitFor()
    // The handoff code left the address bar; nothing of it is in the history.
    expect(page.url()).not.toContain('handoff')
    const user = await e2e.accounts.findUser(grace.email)
    expect(user).toMatchObject({ name: 'Grace Hopper', role: 'CLIENT', emailVerified: true })
  })

  test('the groups attribute gives the role of the matching rule, and the same person comes back to the same account', async () => {
    const katherine = person('Katherine Johnson', ['staff', 'engineering'])
    const first = await e2e.open()
    await signInThroughSimpleSamlPhp(first.page, katherine)
    await first.page.getByRole('button', { name: 'Account menu for Katherine Johnson' }).waitFor()
    const user = await e2e.accounts.findUser(katherine.email)
    expect(user.role).toBe('DEVELOPER')

    // Another browser, a new SimpleSAMLphp session: the persistent NameID finds the same account.
    const second = await e2e.open()
    await signInThroughSimpleSamlPhp(second.page, katherine)
    await second.page.getByRole('button', { name: 'Account menu for Katherine Johnson' }).waitFor()
    const again = await e2e.accounts.findUser(katherine.email)
    expect(again.id).toBe(user.id)
    const { accessToken, csrfToken } = await storedSession(second.page)
    const identities = await callApi<{ identities: { providerName: string; kind: string }[] }>(e2e.server, 'GET', '/auth/identities', {
      session: { accessToken: accessToken!, csrfToken: csrfToken! },
    })
    expect(identities.body.data.identities.map(({ providerName, kind }) => ({ providerName, kind }))).toEqual([{ providerName: 'Company SAML', kind: 'saml' }])
  })
})
