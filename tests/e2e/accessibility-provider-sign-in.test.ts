import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { problemsOf, screenshot, settle, SIZES, useTheme } from './support/accessibility'
import { browserTests } from './support/fixtures'

/**
 * The screens of signing in with an identity provider, as tests/e2e/accessibility.test.ts checks
 * every other screen: axe-core finds no WCAG 2.1 A/AA violation in the light and in the dark
 * theme, at 1280 px and on a 360 px phone; nothing scrolls sideways, no word is broken where it
 * would fit, no placeholder is cut off. The server's provider answers are given here (a long
 * provider name among them), so each state shows without an upstream provider. Screenshots go to
 * test-results/screenshots/provider-sign-in-* with SCREENSHOTS=1.
 */
const e2e = browserTests()

const LONG_NAME = 'Northwind Traders Corporate Single Sign-On'
const PROVIDERS = [
  { id: 'idp_google', name: 'Google', kind: 'google' },
  { id: 'idp_northwind', name: LONG_NAME, kind: 'oidc' },
]
const LINK_REQUIRED = {
  linkRequired: true,
  email: 'grace.hopper@northwind-traders.example.com',
  provider: { id: 'idp_northwind', name: LONG_NAME },
  linkToken: 'link-token-for-the-accessibility-test',
  returnTo: '/dashboard',
}
const HANDOFF = '/login/complete#handoff=handoff-code-for-the-accessibility-test'

const json = (data: unknown, status = 200) => ({ status, contentType: 'application/json', body: JSON.stringify(status < 400 ? { success: true, data } : data) })

/** The public providers' list, and (optionally) the handoff's answer, as the server would give them. */
async function answer(page: Page, complete?: unknown) {
  await page.route('**/api/auth/identity-providers', (route) => route.fulfill(json({ identityProviders: PROVIDERS })))
  await page.route('**/api/auth/identity-providers/discover?*', (route) => route.fulfill(json({ identityProvider: { id: 'idp_northwind', name: LONG_NAME } })))
  if (complete === 'hold') await page.route('**/api/auth/federation/complete', () => undefined)
  else if (complete) await page.route('**/api/auth/federation/complete', (route) => route.fulfill(json(complete)))
}

interface Screen {
  name: string
  open(page: Page): Promise<void>
  /** The page shows a spinner on purpose. */
  keepSpinner?: boolean
}

const SCREENS: Screen[] = [
  {
    name: 'sign-in-with-providers',
    async open(page) {
      await answer(page)
      await page.goto('/login')
      await page.getByRole('link', { name: `Continue with ${LONG_NAME}` }).waitFor()
    },
  },
  {
    name: 'sign-in-routed-by-domain',
    async open(page) {
      await answer(page)
      await page.goto('/login')
      await page.getByLabel('Email').fill('grace.hopper@northwind-traders.example.com')
      await page.getByLabel('Email').blur()
      await page.getByRole('button', { name: 'Use my password instead' }).waitFor()
    },
  },
  {
    name: 'sign-in-after-a-failed-provider-sign-in',
    async open(page) {
      await answer(page)
      await page.goto('/login?error=federation_failed')
      await page.getByRole('alert').waitFor()
    },
  },
  {
    name: 'complete-signing-in',
    keepSpinner: true,
    async open(page) {
      await answer(page, 'hold')
      await page.goto(HANDOFF)
      await page.getByRole('heading', { level: 1, name: 'Signing you in…' }).waitFor()
    },
  },
  {
    name: 'complete-existing-account-proof',
    async open(page) {
      await answer(page, LINK_REQUIRED)
      await page.goto(HANDOFF)
      await page.getByText(`Link ${LONG_NAME} to your account`).waitFor()
    },
  },
  {
    name: 'complete-second-step',
    async open(page) {
      await answer(page, { mfaRequired: true, mfaToken: 'mfa-token-for-the-accessibility-test', methods: ['totp', 'recovery'], returnTo: '/dashboard' })
      await page.goto(HANDOFF)
      await page.getByLabel('Code from the app').waitFor()
    },
  },
]

describe('signing in with a provider, light and dark, desktop and phone', () => {
  test.each(SCREENS.map((screen) => [screen.name, screen] as const))('%s', async (_name, screen) => {
    const app = await e2e.open({ reducedMotion: 'reduce' })
    const { page } = app
    await screen.open(page)
    const problems: string[] = []
    for (const size of SIZES) {
      await page.setViewportSize(size)
      for (const theme of ['light', 'dark'] as const) {
        await useTheme(page, theme)
        await settle(page, screen.keepSpinner)
        problems.push(...(await problemsOf(page, `${screen.name}, ${theme}, ${size.width} px`)))
        await screenshot(page, `provider-sign-in-${screen.name}-${size.label}-${theme}`)
      }
    }
    expect(problems).toEqual([])
  })

  test('in German, the longest texts, on a phone in the dark theme, the buttons and the existing-account proof pass and fit', async () => {
    const german = await e2e.open({ viewport: { width: 360, height: 740 }, colorScheme: 'dark', reducedMotion: 'reduce' })
    await german.context.addInitScript(() => localStorage.setItem('accounts.settings', JSON.stringify({ language: 'de' })))
    const { page } = german
    await answer(page)
    await page.goto('/login')
    await page.getByRole('link', { name: `Weiter mit ${LONG_NAME}` }).waitFor()
    await settle(page)
    const problems = await problemsOf(page, 'sign-in-with-providers, de, dark, 360 px')
    await page.unrouteAll({ behavior: 'ignoreErrors' })
    await answer(page, LINK_REQUIRED)
    await page.goto(HANDOFF)
    await page.getByText(`${LONG_NAME} mit Ihrem Konto verknüpfen`).waitFor()
    await settle(page)
    problems.push(...(await problemsOf(page, 'complete-existing-account-proof, de, dark, 360 px')))
    await screenshot(page, 'provider-sign-in-link-de-phone-dark')
    expect(problems).toEqual([])
  })
})
