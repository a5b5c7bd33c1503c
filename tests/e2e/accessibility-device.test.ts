import * as client from 'openid-client'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { axeViolations, horizontalOverflow, SIZES, useTheme } from './support/accessibility'
import { openSignedIn } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * The device sign-in pages (`APP_URL/device`, answered at /oidc/device): typing the code, "Code
 * expired or unknown", confirming the code, signed in and denied. axe-core finds no WCAG 2.1 A/AA
 * violation in the light and in the dark theme, at 1280 px and on a 360 px phone, and nothing
 * scrolls sideways (as tests/e2e/accessibility.test.ts checks every other screen).
 */
const e2e = browserTests()
const APP = 'Deploy CLI'

/** A code from the command-line tool's side (openid-client), for a public app with device sign-in. */
async function newUserCode(): Promise<string> {
  const created = await e2e.accounts.asAdmin<{ application: { id: string } }>('POST', '/admin/applications', { name: APP, type: 'public', deviceFlow: true })
  const config = await client.discovery(new URL(`${e2e.server.url}/oidc`), created.body.data.application.id, {}, client.None(), {
    execute: [client.allowInsecureRequests],
  })
  return (await client.initiateDeviceAuthorization(config, { scope: 'openid profile' })).user_code
}

async function typeCode(page: Page, code: string): Promise<void> {
  await page.goto('/device')
  await fillCode(page, code)
}

/**
 * The code typed once the form shows. After a navigation to /device, the app goes on to
 * /oidc/device by itself: a second navigation meanwhile would interrupt that one.
 */
async function fillCode(page: Page, code: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Sign in on a device' }).waitFor()
  await page.getByRole('textbox', { name: 'Code' }).fill(code)
  await page.getByRole('button', { name: 'Continue' }).click()
}

/** Every problem axe or the layout finds in the page as it is, in both themes and at both sizes. */
async function problemsOf(page: Page, name: string): Promise<string[]> {
  const problems: string[] = []
  for (const size of SIZES) {
    await page.setViewportSize(size)
    for (const theme of ['light', 'dark'] as const) {
      await useTheme(page, theme)
      const where = `${name}, ${theme}, ${size.width} px`
      const violations = await axeViolations(page)
      if (violations.length > 0) problems.push(`${where}: ${JSON.stringify(violations, null, 2)}`)
      const overflow = await horizontalOverflow(page)
      if (overflow > 0) problems.push(`${where}: scrolls sideways by ${overflow} px`)
    }
  }
  await page.setViewportSize(SIZES[0])
  return problems
}

describe('device sign-in pages, light and dark, desktop and phone', () => {
  test('typing the code, and “Code expired or unknown”', async () => {
    const { page } = await e2e.open()
    await page.goto('/device')
    await page.getByRole('heading', { level: 1, name: 'Sign in on a device' }).waitFor()
    const problems = await problemsOf(page, 'device-code')
    await typeCode(page, 'BCDF-GHJK')
    await page.getByText('Code expired or unknown.').waitFor()
    problems.push(...(await problemsOf(page, 'device-code-unknown')))
    expect(problems).toEqual([])
  }, 90_000)

  test('confirming the code, then denied', async () => {
    const { page } = await e2e.open()
    await typeCode(page, await newUserCode())
    await page.getByRole('heading', { level: 1, name: `Sign in to ${APP}?` }).waitFor()
    const problems = await problemsOf(page, 'device-confirm')
    await page.getByRole('button', { name: 'Deny' }).click()
    await page.getByRole('heading', { level: 1, name: 'Sign-in denied' }).waitFor()
    problems.push(...(await problemsOf(page, 'device-denied')))
    expect(problems).toEqual([])
  }, 90_000)

  test('signed in', async () => {
    const person = await e2e.accounts.create()
    const code = await newUserCode()
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, person, '/device')
    await fillCode(page, code)
    await page.getByRole('heading', { level: 1, name: `Sign in to ${APP}?` }).waitFor()
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByRole('button', { name: 'Allow' }).click()
    await page.getByRole('heading', { level: 1, name: 'Your device is signed in' }).waitFor()
    expect(await problemsOf(page, 'device-done')).toEqual([])
  }, 90_000)
})
