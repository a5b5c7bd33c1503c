import type { Page } from 'playwright-core'
import { expect, test } from 'vitest'
import { browserTests } from './support/fixtures'

/**
 * The API reference at /api/docs in a real browser: Swagger UI from the product's own files runs
 * under the strict Content-Security-Policy (a violation is a console error, which fails the test),
 * shows the document, and its "Try it out" calls the API; signing in there authorizes the rest.
 */
const e2e = browserTests()

/** Opens an operation, runs it with "Try it out" (and this body), and returns the answer's status. */
async function tryItOut(page: Page, operationId: string, body?: unknown): Promise<string> {
  const operation = page.locator(`[id$="-${operationId}"]`)
  await operation.locator('.opblock-summary').first().click()
  await operation.getByRole('button', { name: 'Try it out' }).click()
  if (body !== undefined) await operation.locator('textarea.body-param__text').fill(JSON.stringify(body))
  await operation.getByRole('button', { name: 'Execute' }).click()
  const status = operation.locator('.live-responses-table tr.response .response-col_status').first()
  await status.waitFor()
  return (await status.innerText()).trim()
}

test('the reference shows the API and runs its calls, under the strict policy', async () => {
  const app = await e2e.open()
  const { page } = app
  // The 401 below is part of the story (Chromium logs every failed request as a console error).
  app.expectFailedRequests(401)
  await page.goto('/api/docs')
  await page.getByRole('heading', { name: /Accounts API/ }).waitFor()
  await page.getByText('Sign in with e-mail and password').waitFor()
  expect(await page.locator('.opblock').count()).toBeGreaterThan(20)

  expect(await tryItOut(page, 'getHealthLive')).toBe('200')
  // Signed-in calls are refused until the page is authorized...
  expect(await tryItOut(page, 'getAuthMe')).toBe('401')
  // ...which signing in from the page does.
  expect(await tryItOut(page, 'postAuthLogin', e2e.server.admin)).toBe('200')
  const me = page.locator('[id$="-getAuthMe"]')
  await me.getByRole('button', { name: 'Execute' }).click()
  await expect.poll(async () => (await me.locator('.live-responses-table tr.response .response-col_status').first().innerText()).trim()).toBe('200')
})
