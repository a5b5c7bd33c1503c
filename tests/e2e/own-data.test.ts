import fs from 'node:fs/promises'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import type { AccountExport } from '~shared/schemas/own-data'
import { callApi, signInThroughApi } from './support/accounts'
import { openSignedIn, signInThroughPage, toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { addVirtualAuthenticator } from './support/virtual-authenticator'
import { appCode, turnOnTwoFactor } from './support/two-factor'

/**
 * A person's own data in a real Chromium (contract section 15): from Profile, Security tab, they
 * download their data and read it, then delete their account (with the password and the app's
 * code, or with a passkey in the browser's virtual authenticator); the last e-mail arrives in
 * their language, the sign-in page shows, and the account no longer signs in. The app runs at
 * http://localhost, because WebAuthn refuses an IP address as the relying party's id.
 */
const e2e = browserTests({ host: 'localhost' })

async function openSecurityTab(page: Page, tab = 'Security'): Promise<void> {
  await page.getByRole('tab', { name: tab }).click()
}

describe('a person’s own data', () => {
  test('downloads their data and reads it, then deletes the account with the password and the app’s code, gets the e-mail, and cannot sign in again', async () => {
    const account = await e2e.accounts.create({ name: 'Dana Leaving', phone: '+44 20 7946 0958' })
    const app = await e2e.open()
    const { page } = app
    // Signed in first: with two-factor on, the API's sign-in asks for the second step.
    await openSignedIn(page, e2e.server, account, '/dashboard')
    const { secret } = await turnOnTwoFactor(e2e.server, account)
    await page.goto('/profile')
    await openSecurityTab(page)
    const section = page.getByRole('region', { name: 'Your data' })

    const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Download your data' }).click()])
    expect(download.suggestedFilename()).toMatch(/^accounts-export-\d{4}-\d{2}-\d{2}\.json$/)
    const text = await fs.readFile((await download.path())!, 'utf8')
    const data = JSON.parse(text) as AccountExport
    expect(data.user).toMatchObject({ name: 'Dana Leaving', email: account.email, phone: '+44 20 7946 0958', mfaEnabled: true })
    expect(data.twoFactor).toMatchObject({ totp: true, recoveryCodesLeft: 10 })
    expect(data.activity.map((entry) => entry.activity)).toEqual(
      expect.arrayContaining(['Downloaded account data', 'Verified email', 'Enabled two-factor authentication']),
    )
    expect(text).not.toContain(account.password)
    expect(text).not.toContain(secret)
    await toast(page, `Your data was saved as ${download.suggestedFilename()}`).waitFor()

    await section.getByRole('button', { name: 'Delete account' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' })
    await dialog.getByText('This cannot be undone. You will lose:').waitFor()
    await dialog.getByText('Two-factor authentication and your recovery codes').waitFor()
    await dialog.getByText('Your name on your activity: the log keeps its entries, shown as an unknown user').waitFor()

    app.expectFailedRequests(400)
    await dialog.getByLabel('Current password').fill('Not-My-Password-1!')
    await dialog.getByLabel('Code from your authenticator app').fill(appCode(secret))
    await dialog.getByRole('button', { name: 'Delete my account' }).click()
    await dialog.getByText('Current password is incorrect').waitFor()

    await dialog.getByLabel('Current password').fill(account.password)
    await dialog.getByLabel('Code from your authenticator app').fill(appCode(secret, 30))
    await dialog.getByRole('button', { name: 'Delete my account' }).click()
    await toast(page, 'Your account has been deleted').waitFor()
    await page.waitForURL('**/login')
    expect(await page.evaluate(() => localStorage.getItem('accessToken'))).toBeNull()

    const last = await e2e.server.mail.next(account.email, 'Your account was deleted - Accounts')
    expect(last.text).toContain(`Your account ${account.email} was deleted at your request`)

    app.expectFailedRequests(401)
    await signInThroughPage(page, account)
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor()
    expect(page.url()).toMatch(/\/login$/)
    await expect(signInThroughApi(e2e.server, account.email, account.password)).rejects.toThrow(/401/)
  })

  test('in German, deletes the account with a passkey held by the browser, and the last e-mail is in German', async () => {
    const account = await e2e.accounts.create({ name: 'Jonas Passkey' })
    const app = await e2e.open({ locale: 'de-DE' })
    const { page } = app
    // No passkey autofill on the sign-in page, so that the passkey is tried only when asked.
    await page.addInitScript(() => {
      if (window.PublicKeyCredential) window.PublicKeyCredential.isConditionalMediationAvailable = async () => false
    })
    await addVirtualAuthenticator(page)
    await openSignedIn(page, e2e.server, account, '/profile')
    await openSecurityTab(page, 'Sicherheit')
    await page.getByRole('button', { name: 'Passkey hinzufügen' }).click()
    await toast(page, 'Passkey hinzugefügt').waitFor()

    const section = page.getByRole('region', { name: 'Ihre Daten' })
    await section.getByRole('button', { name: 'Konto löschen' }).click()
    const dialog = page.getByRole('dialog', { name: 'Ihr Konto löschen?' })
    await dialog.getByText('Ihre Passkeys (1)').waitFor()
    await dialog.getByRole('button', { name: 'Mit einem Passkey bestätigen' }).click()
    await toast(page, 'Ihr Konto wurde gelöscht').waitFor()
    await page.waitForURL('**/login')

    const last = await e2e.server.mail.next(account.email, 'Ihr Konto wurde gelöscht - Accounts')
    expect(last.text).toContain(`Ihr Konto ${account.email} wurde auf Ihren Wunsch gelöscht`)
    expect((await callApi(e2e.server, 'POST', '/auth/login', { body: { email: account.email, password: account.password } })).status).toBe(401)

    // The browser still holds the passkey; the product no longer knows it.
    app.expectFailedRequests(401)
    const [refused] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/api/auth/passkeys/authentication')),
      page.getByRole('button', { name: 'Mit einem Passkey anmelden' }).click(),
    ])
    expect(refused.status()).toBe(401)
    await page.getByRole('alert').filter({ hasText: 'Mit diesem Passkey konnten Sie nicht angemeldet werden' }).waitFor()
  })

  test('an administrator is told why they cannot delete their own account, and nothing is asked', async () => {
    const admin = await e2e.accounts.create({ role: 'ADMIN' })
    const app = await e2e.open()
    const { page } = app
    await openSignedIn(page, e2e.server, admin, '/profile')
    await openSecurityTab(page)
    const button = page.getByRole('region', { name: 'Your data' }).getByRole('button', { name: 'Delete account' })
    await button.focus()
    await page.keyboard.press('Enter')
    expect(await button.getAttribute('aria-disabled')).toBe('true')
    const reason = await button.evaluate((element) => document.getElementById(element.getAttribute('aria-describedby')!)?.textContent)
    expect(reason).toBe('Administrators cannot delete their own account: another administrator must change your role first.')
    expect(await page.getByRole('dialog').count()).toBe(0)
    const session = await signInThroughApi(e2e.server, admin.email, admin.password)
    expect((await callApi(e2e.server, 'GET', '/auth/me', { session })).status).toBe(200)
  })
})
