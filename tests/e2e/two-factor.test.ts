import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { signInThroughPage, toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { appCode } from './support/two-factor'

/**
 * Two-factor sign-in in the browser: a user turns it on from the Security tab without scanning
 * anything (the test reads the key shown as text and plays the authenticator app), signs out,
 * signs in with a code from the app, then with a recovery code, each time landing where a
 * one-step sign-in would.
 */
const e2e = browserTests()

async function logOut(page: Page, name: string) {
  await page.getByRole('button', { name: `Account menu for ${name}` }).click()
  await page.getByRole('menuitem', { name: 'Log out' }).click()
  await page.waitForURL('**/login')
}

describe('two-factor sign-in', () => {
  test('a user turns it on reading the key, then signs in with a code and with a recovery code', async () => {
    const account = await e2e.accounts.create({ name: 'Katherine Johnson' })
    const app = await e2e.open()
    // A wrong password, a wrong code: refused calls the page expects.
    app.expectFailedRequests(400, 401)
    const { page } = app
    await signInThroughPage(page, account)
    await page.waitForURL('**/dashboard')
    await page.goto('/profile')
    await page.getByRole('tab', { name: 'Security' }).click()
    const section = page.getByRole('region', { name: 'Two-factor authentication' })
    await section.getByText('Off', { exact: true }).waitFor()

    await section.getByRole('button', { name: 'Set up two-factor authentication' }).click()
    await section.getByLabel('Current password').fill('Wrong-Horse-99!')
    await section.getByRole('button', { name: 'Continue' }).click()
    await section.getByText('Current password is incorrect').waitFor()
    await section.getByLabel('Current password').fill(account.password)
    await section.getByRole('button', { name: 'Continue' }).click()

    await section.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor()
    const secret = ((await section.getByTestId('totp-secret').textContent()) ?? '').replace(/\s+/g, '')
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    const code = section.getByLabel('Code from the app')
    expect(await code.getAttribute('autocomplete')).toBe('one-time-code')
    expect(await code.getAttribute('inputmode')).toBe('numeric')
    await code.fill(appCode(secret, -120))
    await section.getByRole('button', { name: 'Turn on' }).click()
    await section.getByText('Invalid code').waitFor()
    await code.fill(appCode(secret))
    await section.getByRole('button', { name: 'Turn on' }).click()

    const codes = section.getByRole('list', { name: 'Your recovery codes' }).getByRole('listitem')
    await codes.first().waitFor()
    const recoveryCodes = await codes.allInnerTexts()
    expect(recoveryCodes).toHaveLength(10)
    await toast(page, 'Two-factor authentication is on').waitFor()
    const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Download .txt' }).click()])
    expect(download.suggestedFilename()).toBe('accounts-recovery-codes.txt')
    const file = await new Response((await download.createReadStream()) as unknown as ReadableStream).text()
    for (const recovery of recoveryCodes) expect(file).toContain(recovery)
    await section.getByRole('button', { name: 'I have saved my codes' }).click()
    await section.getByText('Recovery codes left: 10').waitFor()
    await section.getByText('On', { exact: true }).waitFor()
    await e2e.server.mail.next(account.email, 'Two-factor authentication is on - Accounts')

    // Signed out, the user asks for a page first: after both steps, that is where they land.
    await logOut(page, account.name)
    await page.goto('/settings')
    await page.waitForURL('**/login')
    await signInThroughPage(page, account)
    const step = page.getByLabel('Code from the app')
    await step.waitFor()
    expect(await step.getAttribute('autocomplete')).toBe('one-time-code')
    expect(await step.getAttribute('inputmode')).toBe('numeric')
    // The step after the one that turned it on (a phone a little fast is accepted).
    await step.fill(appCode(secret, 30))
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.waitForURL('**/settings')
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()

    await logOut(page, account.name)
    await signInThroughPage(page, account)
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click()
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!)
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.waitForURL('**/dashboard')

    // The recovery code is spent.
    await logOut(page, account.name)
    await signInThroughPage(page, account)
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click()
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!)
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.getByRole('alert').filter({ hasText: 'Invalid code. Please try again, or sign in again after 5 wrong codes.' }).waitFor()
  })
})
