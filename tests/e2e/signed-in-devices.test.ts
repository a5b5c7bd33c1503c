import { describe, expect, test } from 'vitest'
import { type AppPage, signInThroughPage, toast } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * Signed-in devices: a user sees where they are signed in (Profile, Security tab) and signs
 * other browsers out, one by one and all at once; each of those is sent to the sign-in page on its
 * next click.
 */
const e2e = browserTests()

const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1'

/** A browser of its own (its own storage), introducing itself with this User-Agent, signed in through the sign-in page. */
async function signedInBrowser(account: { email: string; password: string }, userAgent?: string): Promise<AppPage> {
  const context = userAgent ? await e2e.browser.newContext({ baseURL: e2e.server.url, viewport: { width: 1280, height: 800 }, userAgent }) : undefined
  const app = await e2e.open(context ? { context } : {})
  await signInThroughPage(app.page, account)
  await app.page.waitForURL('**/dashboard')
  return app
}

/** The next click of a browser whose session has ended: the app finds out and sends it to /login. */
async function clickAfterSignOut(app: AppPage): Promise<void> {
  app.expectFailedRequests(401)
  await app.page.getByRole('complementary').getByRole('link', { name: 'Profile' }).click()
  await app.page.waitForURL('**/login')
  await app.page.getByRole('heading', { name: 'Sign in' }).waitFor()
}

describe('signed-in devices', () => {
  test('a user signs a second browser out from the devices list, then every other one, and each is sent to /login on its next click', async () => {
    const account = await e2e.accounts.create()
    const laptop = await signedInBrowser(account)
    const desktop = await signedInBrowser(account, FIREFOX_WINDOWS)
    const phone = await signedInBrowser(account, SAFARI_IPHONE)

    const { page } = laptop
    await page.getByRole('complementary').getByRole('link', { name: 'Profile' }).click()
    await page.getByRole('tab', { name: 'Security' }).click()
    const list = page.getByRole('list', { name: 'Signed-in devices' })
    await list.getByRole('listitem').nth(2).waitFor()
    expect(await list.getByRole('listitem').count()).toBe(3)
    const here = list.getByRole('listitem').filter({ hasText: 'This device' })
    expect(await here.count()).toBe(1)
    expect(await here.getByRole('button').count()).toBe(0)
    await here.getByText('Active now').waitFor()
    const other = list.getByRole('listitem').filter({ hasText: 'Firefox 133 on Windows' })
    await other.getByText(/^IP address /).waitFor()
    await other.getByText(/Last active/).waitFor()

    await page.getByRole('button', { name: 'Sign out Firefox 133 on Windows' }).click()
    await toast(page, 'Firefox 133 on Windows signed out').waitFor()
    await other.waitFor({ state: 'detached' })
    expect(await list.getByRole('listitem').count()).toBe(2)
    await clickAfterSignOut(desktop)

    // The phone is still in the list, signed in, until every other device is signed out.
    await list.getByRole('listitem').filter({ hasText: 'Safari 18 on iOS' }).waitFor()

    await page.getByRole('button', { name: 'Sign out of all other devices' }).click()
    const dialog = page.getByRole('dialog', { name: 'Sign out of all other devices?' })
    await dialog.getByText('Every other device (1) will have to sign in again. This device stays signed in.').waitFor()
    await dialog.getByRole('button', { name: 'Sign out other devices' }).click()
    await toast(page, 'Signed out of all other devices').waitFor()
    await page.getByText('This is the only device signed in to your account.').waitFor()
    expect(await list.getByRole('listitem').count()).toBe(1)
    await clickAfterSignOut(phone)

    // This browser is still signed in.
    await page.reload()
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor()
  })
})
