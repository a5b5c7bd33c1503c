import { expect, test } from 'vitest'
import { signInThroughPage, storedSession } from './support/browser'
import { browserTests } from './support/fixtures'

/** The built app loads from the real server, an administrator signs in and signs out. */
const e2e = browserTests()

test('the app loads, signs in and signs out', async () => {
  const { page } = await e2e.open()

  await page.goto('/')
  await page.waitForURL('**/login')
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()

  await signInThroughPage(page, e2e.server.admin)
  await page.waitForURL('**/dashboard')
  await page.getByRole('heading', { name: /Welcome back/ }).waitFor()
  expect((await storedSession(page)).accessToken).toBeTruthy()

  await page.getByRole('button', { name: /Account menu/ }).click()
  await page.getByRole('menuitem', { name: 'Log out' }).click()
  await page.waitForURL('**/login')
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  expect((await storedSession(page)).accessToken).toBeNull()
})
