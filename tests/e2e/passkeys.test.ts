import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import type { Account } from './support/accounts'
import { openSignedIn, toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { addVirtualAuthenticator } from './support/virtual-authenticator'

/**
 * Passkeys in a real Chromium, with its virtual authenticator (the DevTools protocol's WebAuthn
 * domain: internal transport, resident keys, user verification on, presence simulated). The app
 * runs at http://localhost, because WebAuthn refuses an IP address as the relying party's id.
 *
 * With presence simulated, a passkey request waiting in the e-mail field's autofill (conditional
 * mediation) is answered at once as /login loads. So the button's journey runs in a page told
 * that this browser has no passkey autofill, and the autofill's journey has a test of its own.
 */
const e2e = browserTests({ host: 'localhost' })

/** A browser whose WebAuthn has no autofill for passkeys (so /login waits for the button). */
const withoutPasskeyAutofill = (page: Page) =>
  page.addInitScript(() => {
    if (window.PublicKeyCredential) window.PublicKeyCredential.isConditionalMediationAvailable = async () => false
  })

async function openSecurityTab(page: Page): Promise<void> {
  await page.goto('/profile')
  await page.getByRole('tab', { name: 'Security' }).click()
  await page.getByRole('heading', { name: 'Passkeys' }).waitFor()
}

/** Adds a passkey in Profile, Security tab, and waits for it in the list. */
async function addPasskey(page: Page): Promise<void> {
  await openSecurityTab(page)
  await page.getByText('You have no passkeys yet.').waitFor()
  await page.getByRole('button', { name: 'Add a passkey' }).click()
  await toast(page, 'Passkey added').waitFor()
  await page.getByRole('list', { name: 'Your passkeys' }).getByRole('listitem').filter({ hasText: 'Passkey 1' }).waitFor()
}

async function logOut(page: Page, account: Account): Promise<void> {
  await page.getByRole('button', { name: `Account menu for ${account.name}` }).click()
  await page.getByRole('menuitem', { name: 'Log out' }).click()
  await page.waitForURL('**/login')
}

describe('passkeys', () => {
  test('a user adds a passkey in Profile, signs in with it without a password, removes it, and it no longer signs in', async () => {
    const account = await e2e.accounts.create()
    const app = await e2e.open()
    const { page } = app
    await withoutPasskeyAutofill(page)
    await addVirtualAuthenticator(page)
    await openSignedIn(page, e2e.server, account, '/dashboard')
    await addPasskey(page)
    const list = page.getByRole('list', { name: 'Your passkeys' })
    await list
      .getByRole('listitem')
      .filter({ hasText: /never used/ })
      .waitFor()
    const notice = await e2e.server.mail.next(account.email, 'A passkey was added to your account - Accounts')
    expect(notice.text).toContain('A passkey named "Passkey 1" was just added to your account.')

    // Rename it.
    await page.getByRole('button', { name: 'Rename Passkey 1' }).click()
    const rename = page.getByRole('dialog', { name: 'Rename passkey' })
    await rename.getByLabel('Passkey name').fill('This laptop')
    await rename.getByRole('button', { name: 'Save' }).click()
    await toast(page, 'Passkey renamed').waitFor()
    await list.getByRole('listitem').filter({ hasText: 'This laptop' }).waitFor()

    await logOut(page, account)
    const passwordSignIns: string[] = []
    page.on('request', (request) => {
      if (request.url().endsWith('/api/auth/login')) passwordSignIns.push(request.url())
    })
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/api/auth/passkeys/authentication')),
      page.getByRole('button', { name: 'Sign in with a passkey' }).click(),
    ])
    expect(answer.status()).toBe(200)
    await page.waitForURL('**/dashboard')
    await page.getByRole('heading', { name: `Welcome back, ${account.name}!` }).waitFor()
    expect(passwordSignIns).toEqual([])
    expect(await page.getByLabel('Password', { exact: true }).count()).toBe(0)

    // The list tells when it was last used; then it is removed, after a confirmation.
    await openSecurityTab(page)
    await list
      .getByRole('listitem')
      .filter({ hasText: /last used/ })
      .waitFor()
    await page.getByRole('button', { name: 'Remove This laptop' }).click()
    const confirm = page.getByRole('dialog', { name: 'Remove this passkey?' })
    await confirm.getByText('“This laptop” will no longer sign you in.', { exact: false }).waitFor()
    await confirm.getByRole('button', { name: 'Remove passkey' }).click()
    await toast(page, 'Passkey removed').waitFor()
    await page.getByText('You have no passkeys yet.').waitFor()

    // The authenticator still holds it, but the account no longer knows it.
    await logOut(page, account)
    app.expectFailedRequests(401)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.getByRole('alert').filter({ hasText: 'This passkey could not sign you in. It may have been removed from your account' }).waitFor()
    expect(page.url()).toMatch(/\/login$/)
  })

  test('the e-mail field offers passkeys: with presence simulated, the waiting request signs in as /login loads', async () => {
    const account = await e2e.accounts.create()
    const { page } = await e2e.open()
    await addVirtualAuthenticator(page)
    await openSignedIn(page, e2e.server, account, '/dashboard')
    await addPasskey(page)
    await page.getByRole('button', { name: `Account menu for ${account.name}` }).click()
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/api/auth/passkeys/authentication')),
      page.getByRole('menuitem', { name: 'Log out' }).click(),
    ])
    expect(answer.status()).toBe(200)
    await page.getByRole('heading', { name: `Welcome back, ${account.name}!` }).waitFor()
  })

  test('the sign-in page marks the e-mail field for passkey autofill', async () => {
    const { page } = await e2e.open()
    await page.goto('/login')
    expect(await page.getByLabel('Email').getAttribute('autocomplete')).toBe('username webauthn')
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor()
  })

  test('a browser without WebAuthn sees no passkey controls', async () => {
    const account = await e2e.accounts.create()
    const { page } = await e2e.open()
    await page.addInitScript(() => {
      // @ts-expect-error: a browser without WebAuthn
      delete window.PublicKeyCredential
    })
    await page.goto('/login')
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor()
    expect(await page.getByRole('button', { name: 'Sign in with a passkey' }).count()).toBe(0)
    expect(await page.getByLabel('Email').getAttribute('autocomplete')).toBe('email')

    await openSignedIn(page, e2e.server, account, '/dashboard')
    await openSecurityTab(page)
    await page.getByText('This browser cannot create passkeys.', { exact: false }).waitFor()
    expect(await page.getByRole('button', { name: 'Add a passkey' }).count()).toBe(0)
  })
})
