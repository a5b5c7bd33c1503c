import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type UpstreamProvider, startUpstreamProvider } from '../support/upstream-provider'
import { callApi, signInThroughApi, uniqueEmail } from './support/accounts'
import { openSignedIn, toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { addVirtualAuthenticator } from './support/virtual-authenticator'

/**
 * Linking a provider from Profile → Security with a passkey instead of the password, in Chromium
 * with its virtual authenticator, against a real OpenID Provider on loopback: the Link dialog
 * offers both proofs to an account that has both; the passkey's answer starts the link, the
 * provider's pages finish by themselves, and the browser comes back to Profile with the identity
 * linked. The app runs at http://localhost, because WebAuthn refuses an IP address as the
 * relying party's id.
 */
const e2e = browserTests({ host: 'localhost' })
let upstream: UpstreamProvider | undefined
let provider: { id: string; name: string }

beforeAll(async () => {
  upstream = await startUpstreamProvider()
  const clientId = 'accounts-passkey-link'
  const answer = await e2e.accounts.asAdmin<{ identityProvider: { id: string; name: string } }>('POST', '/admin/identity-providers', {
    kind: 'oidc',
    name: 'Company SSO',
    issuer: upstream.issuer,
    clientId,
    clientSecret: 'upstream-secret',
  })
  if (answer.status !== 201) throw new Error(`adding the provider failed: ${answer.status} ${answer.body.message}`)
  provider = answer.body.data.identityProvider
  upstream.addClient({ clientId, clientSecret: 'upstream-secret', redirectUri: `${e2e.server.url}/api/auth/federation/${provider.id}/callback` })
})
afterAll(async () => {
  await upstream?.close()
})

describe('linking a provider with a passkey', () => {
  test('an account with a password and a passkey chooses the passkey; the provider links and the browser comes back to Profile', async () => {
    const account = await e2e.accounts.create({ name: 'Kim Passkey' })
    const upstreamEmail = uniqueEmail('kim-at-sso')
    upstream!.signInAs({ sub: `e2e-kim-${process.pid}`, email: upstreamEmail, email_verified: true, name: 'Kim Passkey' })
    const { page } = await e2e.open()
    await addVirtualAuthenticator(page)
    await openSignedIn(page, e2e.server, account, '/profile?tab=security')
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await toast(page, 'Passkey added').waitFor()

    const section = page.getByRole('region', { name: 'Linked sign-in methods' })
    await section.getByRole('button', { name: 'Link Company SSO' }).click()
    const dialog = page.getByRole('dialog', { name: 'Link Company SSO' })
    // Both proofs are offered; the passkey is chosen.
    await dialog.getByLabel('Current password').waitFor()
    const started = page.waitForResponse((response) => response.url().endsWith(`/api/auth/identities/${provider.id}/link`))
    await dialog.getByRole('button', { name: 'Confirm with a passkey' }).click()
    const request = (await started).request()
    expect(Object.keys(request.postDataJSON() as object)).toEqual(['passkeyResponse'])

    await page.waitForURL('**/profile')
    await toast(page, 'Company SSO is now linked to your account').waitFor()
    const identities = await callApi<{ identities: { providerName: string; email: string }[] }>(e2e.server, 'GET', '/auth/identities', {
      session: await signInThroughApi(e2e.server, account.email, account.password),
    })
    expect(identities.body.data.identities).toMatchObject([{ providerName: 'Company SSO', email: upstreamEmail }])
  })
})
