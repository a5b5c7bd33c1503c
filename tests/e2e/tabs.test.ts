import type { Page } from 'playwright-core'
import { expect, test } from 'vitest'
import { signInThroughPage } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * Several tabs of one browser stay signed in together: when their access
 * token expires, exactly one refresh is made between them and both carry on; signing out in one
 * signs out the other, and signing in in one signs in the other.
 */
/** Long enough for both pages to load on a fresh token, short enough to wait for. */
const TOKEN_LIFE_SECONDS = 6
const e2e = browserTests({ env: { ACCESS_TOKEN_TTL: String(TOKEN_LIFE_SECONDS) } })

function countRefreshes(page: Page): () => number {
  let refreshes = 0
  page.context().on('request', (request) => {
    if (request.url().endsWith('/api/auth/refresh-token')) refreshes += 1
  })
  return () => refreshes
}

const tokenExpiry = (page: Page) => page.waitForTimeout((TOKEN_LIFE_SECONDS + 1) * 1000)

/**
 * The administrator signed in on the dashboard in a first tab, and a second tab of the same
 * browser opened at `path`, waiting until `ready` says the page is there. The expired token's
 * 401s are expected in both (Chromium logs every failed request); nothing else.
 */
async function twoSignedInTabs(path: string, ready: (page: Page) => Promise<void>) {
  const first = await e2e.open()
  const refreshes = countRefreshes(first.page)
  first.expectFailedRequests(401)
  await signInThroughPage(first.page, e2e.server.admin)
  await first.page.waitForURL('**/dashboard')
  const second = await e2e.openTab(first)
  second.expectFailedRequests(401)
  await second.page.goto(path)
  await ready(second.page)
  return { first, second, refreshes }
}

test('two tabs: one refresh when the token expires, and sign-out reaches both', async () => {
  const { first, second, refreshes } = await twoSignedInTabs('/admin/users', (page) => page.getByRole('heading', { name: /User Management \(/ }).waitFor())

  await tokenExpiry(first.page)
  expect(refreshes()).toBe(0)
  await Promise.all([first.page.reload(), second.page.reload()])
  await first.page.getByRole('heading', { name: /Welcome back/ }).waitFor()
  await second.page.getByRole('heading', { name: /User Management \(/ }).waitFor()
  expect(refreshes()).toBe(1)

  await first.page.getByRole('button', { name: /Account menu/ }).click()
  await first.page.getByRole('menuitem', { name: 'Log out' }).click()
  await first.page.waitForURL('**/login')
  await second.page.waitForURL('**/login')
})

test('a tab working after the expiry refreshes the session, the other tab goes on with it; signing in again in one tab brings both back', async () => {
  const { first, second, refreshes } = await twoSignedInTabs('/my-activity', async (page) => {
    await page.getByRole('heading', { name: 'My Activity' }).waitFor()
    await page.getByRole('navigation', { name: 'Pagination' }).waitFor()
  })

  await tokenExpiry(first.page)
  // Moving on in the first tab: its next call meets the expired token and refreshes.
  await first.page.getByRole('complementary').getByRole('link', { name: 'Activity Logs' }).click()
  await first.page.getByRole('list', { name: 'Activity entries' }).waitFor()
  expect(refreshes()).toBe(1)

  // The second tab's next call uses the session the first one refreshed: no 401, no refresh.
  const unauthorized: string[] = []
  second.page.on('response', (response) => {
    if (response.status() === 401) unauthorized.push(response.url())
  })
  const [answer] = await Promise.all([
    second.page.waitForResponse((response) => new URL(response.url()).pathname === '/api/activity'),
    second.page.getByRole('button', { name: 'Refresh' }).click(),
  ])
  expect(answer.status()).toBe(200)
  expect(unauthorized).toEqual([])
  expect(refreshes()).toBe(1)

  await second.page.getByRole('button', { name: /Account menu/ }).click()
  await second.page.getByRole('menuitem', { name: 'Log out' }).click()
  await Promise.all([first.page.waitForURL('**/login'), second.page.waitForURL('**/login')])

  // Signing in again in one tab brings the other, which was signed out from afar, back to its page.
  await signInThroughPage(second.page, e2e.server.admin)
  await second.page.waitForURL('**/dashboard')
  await first.page.waitForURL('**/admin/activity-logs')
  await first.page.getByRole('heading', { name: 'Activity Logs' }).waitFor()
})
