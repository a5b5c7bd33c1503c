import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Account, callApi, uniqueEmail } from './support/accounts'
import { axeViolations, horizontalOverflow, screenshot, settle, SIZES, textProblems, useTheme } from './support/accessibility'
import { type AppPage, openApp, openSignedIn, storedSession, toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { appCode, turnOnTwoFactor } from './support/two-factor'

/**
 * Every screen of the product, in each of its states, with its dialogs and menus open:
 * axe-core finds no WCAG 2.1 A/AA violation (contrast included) in the light and in the dark
 * theme, at 1280 px and on a 360 px phone, nothing scrolls sideways, no word is broken where it
 * would fit on a line and no placeholder is cut off. The dark theme changes colours only, so a page
 * in it is checked by axe's colour rules alone. With SCREENSHOTS=1, a screenshot of each is written
 * to test-results/screenshots/ for a person to look at. The pages are also checked in German (the
 * longest texts) on a phone, and with long names and e-mail addresses at four widths.
 */
const e2e = browserTests()

type Who = 'visitor' | 'admin' | 'developer' | 'moderator' | 'two-factor'

interface Screen {
  name: string
  who: Who
  /** A page reached by its address alone (also checked in German). */
  path?: string
  /** Brings the page to this state (at 1280 px, light); may return what to undo afterwards. */
  open(page: Page): Promise<void | (() => Promise<void>)>
  /** An open menu or dialog: only it is checked, the page behind is hidden from assistive technology on purpose. */
  within?: string
  /** Only exists on small screens (the menu sheet). */
  phoneOnly?: boolean
  /** Failed requests that are part of the state (Chromium logs each as a console error). */
  failedRequests?: number[]
}

let admin: { name: string; email: string }
let activeClient: Account
let inactiveClient: Account
/** Turns two-factor on and off in the security section's screens. */
let twoFactorUser: Account
/** Has two-factor on: the sign-in page's second step. */
let secondStepUser: Account

/** The security section's two-factor card, its password asked for an action. */
async function twoFactorPassword(page: Page, action: string) {
  await page.goto('/profile')
  await page.getByRole('tab', { name: 'Security' }).click()
  const section = page.getByRole('region', { name: 'Two-factor authentication' })
  await section.getByRole('button', { name: action }).click()
  await section.getByLabel('Current password').waitFor()
  return section
}

/** The password step of the account with two-factor on: the second step shows. */
async function secondStepPage(page: Page) {
  await page.goto('/login')
  await page.getByLabel('Email').fill(secondStepUser.email)
  await page.getByLabel('Password', { exact: true }).fill(secondStepUser.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.getByLabel('Code from the app').waitFor()
}

const h1 = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name, exact: typeof name === 'string' }).waitFor()

/** A page reached by its address, ready once its title shows. */
const at = (who: Who, name: string, address: string, heading: string | RegExp, ready?: (page: Page) => Promise<unknown>): Screen => ({
  name,
  who,
  path: address,
  async open(page) {
    await page.goto(address)
    await h1(page, heading)
    await ready?.(page)
  },
})

/** Holds requests matching the pattern until the returned function is called. */
async function hold(page: Page, pattern: string | RegExp): Promise<() => Promise<void>> {
  let release = () => {}
  const gate = new Promise<void>((resolve) => (release = resolve))
  await page.route(pattern, async (route) => {
    await gate
    await route.continue().catch(() => undefined)
  })
  return async () => {
    release()
    await page.unroute(pattern)
  }
}

const answer = (status: number, body: object) => ({ status, contentType: 'application/json', body: JSON.stringify(body) })
const failing = answer(500, { success: false, message: 'Internal server error' })
/** The sign-in page's code: holding it keeps a page whose timer goes on to /login where it is. */
const LOGIN_CHUNK = /\/assets\/login-page-[^/]+\.js$/

/** Two passkeys, one with a long name, as the Security tab lists them. */
const PASSKEYS = [
  {
    id: '00000000-0000-4000-8000-000000000001',
    name: 'MacBook Pro (work), Touch ID in the keyboard',
    createdAt: '2026-01-05T10:00:00.000Z',
    lastUsedAt: '2026-03-01T08:30:00.000Z',
  },
  { id: '00000000-0000-4000-8000-000000000002', name: 'Security key', createdAt: '2026-02-11T16:20:00.000Z', lastUsedAt: null },
] as const

async function showPasskeys(page: Page) {
  await page.route('**/api/auth/passkeys', (route) =>
    route.request().method() === 'GET' ? route.fulfill(answer(200, { success: true, data: { passkeys: PASSKEYS } })) : route.continue(),
  )
  await page.goto('/profile')
  await page.getByRole('tab', { name: 'Security' }).click()
  await page.getByRole('list', { name: 'Your passkeys' }).waitFor()
}

/** An app's sign-in request ("Sign in with Accounts"), as the interaction endpoint describes it. */
const APP_REQUEST = {
  uid: 'app-request-1',
  app: { id: 'team-wiki', name: 'Team Wiki', firstParty: false },
  prompt: 'login',
  freshSignIn: false,
  scopes: ['openid', 'profile', 'email', 'phone', 'roles', 'offline_access'],
  refusal: null as null | 'role',
}

/** Answers the request's details (or, with `expired`, that it is gone). */
async function appRequest(page: Page, overrides: Partial<typeof APP_REQUEST> | 'expired' = {}) {
  await page.route('**/api/oidc/interactions/*/details', (route) =>
    route.fulfill(
      overrides === 'expired'
        ? answer(404, { success: false, message: 'Sign-in request not found', code: 'INTERACTION_NOT_FOUND' })
        : answer(200, { success: true, data: { ...APP_REQUEST, ...overrides } }),
    ),
  )
}

/** Two connected apps, one with a long name, as the Security tab lists them. */
const CONNECTED_APPS = [
  {
    id: 'team-wiki',
    name: 'Team Wiki and Engineering Handbook (internal)',
    scopes: ['openid', 'profile', 'email', 'roles', 'offline_access'],
    grantedAt: '2026-01-05T10:00:00.000Z',
    lastUsedAt: '2026-03-01T08:30:00.000Z',
  },
  { id: 'sales', name: 'Sales Dashboard', scopes: ['openid'], grantedAt: '2026-02-11T16:20:00.000Z', lastUsedAt: null },
] as const

/** An application with every setting filled in, as its page shows it. */
const APPLICATION = {
  id: 'app_accessibilityaccessibi',
  name: 'Team Wiki and Engineering Handbook (internal)',
  type: 'confidential',
  redirectUris: ['https://wiki.example.com/callback', 'https://wiki.example.com/a/very/long/path/that/has/to/wrap/on/a/phone/callback?tenant=engineering'],
  postLogoutRedirectUris: ['https://wiki.example.com/'],
  backchannelLogoutUri: 'https://wiki.example.com/backchannel-logout',
  allowedRoles: ['ADMIN', 'DEVELOPER'],
  firstParty: false,
  deviceFlow: false,
  enabled: true,
  scopes: [],
  jwks: null,
  createdAt: '2026-01-05T10:00:00.000Z',
  updatedAt: '2026-01-05T10:00:00.000Z',
} as const

/** A service application with API keys and the `scim` scope, for its page with the SCIM connection card (contract sections 11, 13). */
const SERVICE_APPLICATION = {
  ...APPLICATION,
  id: 'app_accessibilityservicea',
  name: 'Payroll Sync',
  type: 'service',
  redirectUris: [],
  postLogoutRedirectUris: [],
  backchannelLogoutUri: null,
  allowedRoles: [],
  scopes: ['users:read', 'users:write', 'scim'],
} as const
const API_KEYS = [
  { id: 'k1', name: 'Nightly export', createdAt: '2026-01-05T10:00:00.000Z', expiresAt: null, lastUsedAt: null, prefix: 'acc_sk_AbCdE' },
  {
    id: 'k2',
    name: 'HR import',
    createdAt: '2026-01-06T10:00:00.000Z',
    expiresAt: '2027-01-06T10:00:00.000Z',
    lastUsedAt: '2026-01-07T10:00:00.000Z',
    prefix: 'acc_sk_ZyXwV',
  },
]

async function showServiceApplication(page: Page) {
  await page.route(`**/api/admin/applications/${SERVICE_APPLICATION.id}`, (route) =>
    route.fulfill(answer(200, { success: true, data: { application: SERVICE_APPLICATION } })),
  )
  await page.route(`**/api/admin/applications/${SERVICE_APPLICATION.id}/keys`, (route) =>
    route.request().method() === 'GET'
      ? route.fulfill(answer(200, { success: true, data: { keys: API_KEYS } }))
      : route.fulfill(answer(201, { success: true, data: { key: { ...API_KEYS[0], id: 'k3', name: 'New key' }, secret: `acc_sk_${'a'.repeat(49)}` } })),
  )
  await page.goto(`/admin/applications/${SERVICE_APPLICATION.id}`)
  await h1(page, SERVICE_APPLICATION.name)
  await page.getByRole('table', { name: 'API keys' }).waitFor()
  await expect.poll(() => page.getByRole('textbox', { name: 'SCIM base URL' }).inputValue()).toMatch(/\/scim\/v2$/)
  await page.getByText(/^Last used /).waitFor()
}

async function showConnectedApps(page: Page) {
  await page.route('**/api/auth/applications', (route) =>
    route.request().method() === 'GET' ? route.fulfill(answer(200, { success: true, data: { applications: CONNECTED_APPS } })) : route.continue(),
  )
  await page.goto('/profile')
  await page.getByRole('tab', { name: 'Security' }).click()
  await page.getByRole('list', { name: 'Your connected apps' }).waitFor()
}

async function openActions(page: Page, who: { name: string; email: string }) {
  await page.goto('/admin/users')
  await page.getByLabel('Search users').fill(who.email)
  await page.getByRole('heading', { name: 'User Management (1)' }).waitFor()
  await page.getByRole('button', { name: `Actions for ${who.name}`, exact: true }).click()
  await page.getByRole('menu').waitFor()
}

/** Signs the administrator in once more, as Firefox on Windows, so the devices list has another device. */
async function signInElsewhere(page: Page) {
  const { email, password } = e2e.server.admin
  const answer = await page.request.post('/api/auth/login', {
    data: { email, password },
    headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0' },
  })
  expect(answer.status()).toBe(200)
}

const SCREENS: Screen[] = [
  // Signed out.
  at('visitor', 'login', '/login', 'Sign in'),
  {
    name: 'login-wrong-password',
    who: 'visitor',
    failedRequests: [401],
    async open(page) {
      await page.goto('/login')
      await page.getByLabel('Email').fill(e2e.server.admin.email)
      await page.getByLabel('Password', { exact: true }).fill('Wrong-Horse-99!')
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByRole('alert').waitFor()
    },
  },
  {
    name: 'login-second-step',
    who: 'visitor',
    async open(page) {
      await secondStepPage(page)
    },
  },
  {
    name: 'login-second-step-recovery-refused',
    who: 'visitor',
    failedRequests: [401],
    async open(page) {
      await secondStepPage(page)
      await page.getByRole('button', { name: 'Use a recovery code instead' }).click()
      await page.getByLabel('Recovery code').fill('aaaa-bbbb-cccc-dddd')
      await page.getByRole('button', { name: 'Verify' }).click()
      await page.getByRole('alert').waitFor()
    },
  },
  {
    // The language chooser of the signed-out pages, used: the page in French.
    name: 'login-language-chosen',
    who: 'visitor',
    async open(page) {
      await page.goto('/login')
      await page.getByRole('combobox', { name: 'Language' }).selectOption('fr')
      await h1(page, 'Connexion')
      return async () => {
        await page.goto('/login')
        await page.getByRole('combobox', { name: 'Langue' }).selectOption('en')
        await h1(page, 'Sign in')
      }
    },
  },
  {
    name: 'login-session-ended',
    who: 'visitor',
    async open(page) {
      await page.goto('/login')
      await h1(page, 'Sign in')
      // What the guard hands over when a session ended on its own (the router keeps it in history.state.usr).
      await page.evaluate(() => window.history.replaceState({ ...window.history.state, usr: { sessionEnded: true } }, ''))
      await page.reload()
      await page.getByRole('status').filter({ hasText: 'Your session has ended. Please sign in again.' }).waitFor()
    },
  },
  at('visitor', 'register', '/register', 'Create an account'),
  {
    name: 'register-field-errors',
    who: 'visitor',
    async open(page) {
      await page.goto('/register')
      await page.getByRole('button', { name: 'Create account' }).click()
      await page.getByText('Invalid email address').waitFor()
    },
  },
  at('visitor', 'forgot-password', '/forgot-password', 'Forgot your password?'),
  {
    name: 'forgot-password-check-your-email',
    who: 'visitor',
    async open(page) {
      await page.goto('/forgot-password')
      await page.getByLabel('Email').fill('someone@example.com')
      await page.getByRole('button', { name: 'Send reset link' }).click()
      await h1(page, 'Check your email')
      await toast(page, 'Password reset instructions sent to your email').waitFor()
    },
  },
  at('visitor', 'reset-password-without-token', '/reset-password', 'Invalid Reset Link'),
  at('visitor', 'accept-invite', '/accept-invite?token=abc', 'Join Accounts'),
  {
    name: 'accept-invite-field-errors',
    who: 'visitor',
    async open(page) {
      await page.goto('/accept-invite?token=abc')
      await page.getByLabel('Password', { exact: true }).fill('short')
      await page.getByRole('button', { name: 'Set password and sign in' }).click()
      await page.getByText('Password must be at least 8 characters').waitFor()
    },
  },
  {
    name: 'accept-invite-invalid-link',
    who: 'visitor',
    failedRequests: [400],
    async open(page) {
      await page.goto('/accept-invite?token=abc')
      await page.getByLabel('Password', { exact: true }).fill('Copper-Lantern-58?')
      await page.getByLabel('Confirm Password').fill('Copper-Lantern-58?')
      await page.getByRole('button', { name: 'Set password and sign in' }).click()
      await h1(page, 'Invalid Invitation Link')
    },
  },
  at('visitor', 'reset-password', '/reset-password?token=abc', 'Reset your password'),
  {
    name: 'reset-password-failed',
    who: 'visitor',
    failedRequests: [400],
    async open(page) {
      await page.goto('/reset-password?token=abc')
      await page.getByLabel('New Password').fill('Copper-Lantern-58?')
      await page.getByLabel('Confirm Password').fill('Copper-Lantern-58?')
      await page.getByRole('button', { name: 'Reset password' }).click()
      await page.getByRole('alert').filter({ hasText: 'Invalid or expired reset link' }).waitFor()
    },
  },
  {
    name: 'reset-password-done',
    who: 'visitor',
    async open(page) {
      await page.goto('/reset-password?token=abc')
      await page.route('**/api/auth/reset-password/**', (route) => route.fulfill(answer(200, { success: true, message: 'Password reset' })))
      const release = await hold(page, LOGIN_CHUNK)
      await page.getByLabel('New Password').fill('Copper-Lantern-58?')
      await page.getByLabel('Confirm Password').fill('Copper-Lantern-58?')
      await page.getByRole('button', { name: 'Reset password' }).click()
      await h1(page, 'Password reset')
      await toast(page, 'Password reset successfully!').waitFor()
      return release
    },
  },
  at('visitor', 'verify-email', '/verify-email?email=someone%40example.com', 'Verify Your Email'),
  {
    name: 'verify-email-verifying',
    who: 'visitor',
    async open(page) {
      const release = await hold(page, '**/api/auth/verify-email/**')
      await page.goto('/verify-email?token=abc&email=someone%40example.com')
      await h1(page, 'Verifying Email')
      return release
    },
  },
  {
    name: 'verify-email-verified',
    who: 'visitor',
    async open(page) {
      await page.route('**/api/auth/verify-email/**', (route) => route.fulfill(answer(200, { success: true, message: 'Email verified' })))
      const release = await hold(page, LOGIN_CHUNK)
      await page.goto('/verify-email?token=abc&email=someone%40example.com')
      await h1(page, 'Email Verified!')
      await toast(page, 'Email verified successfully!').waitFor()
      return release
    },
  },
  {
    name: 'login-after-verifying',
    who: 'visitor',
    async open(page) {
      await page.route('**/api/auth/verify-email/**', (route) => route.fulfill(answer(200, { success: true, message: 'Email verified' })))
      await page.goto('/verify-email?token=abc&email=someone%40example.com')
      await page.waitForURL('**/login', { timeout: 15_000 })
      await page.getByRole('status').filter({ hasText: 'Email verified successfully! Please log in.' }).waitFor()
    },
  },
  {
    name: 'verify-email-failed',
    who: 'visitor',
    failedRequests: [400],
    async open(page) {
      await page.goto('/verify-email?token=abc&email=someone%40example.com')
      await page.getByRole('alert').filter({ hasText: 'Email verification failed' }).waitFor()
    },
  },
  at('visitor', 'unauthorized', '/unauthorized', 'Access Denied'),
  at('visitor', 'account-status-suspended', '/account-status?status=suspended&email=someone%40example.com', 'Account Suspended'),
  at('visitor', 'account-status-inactive', '/account-status?status=inactive&email=someone%40example.com', 'Account Inactive'),
  at('visitor', 'account-status-unknown', '/account-status?status=archived', 'Account Status Unknown'),
  at('visitor', 'debug-signed-out', '/debug', 'Auth Debug'),
  {
    name: 'login-for-app',
    who: 'visitor',
    async open(page) {
      await appRequest(page)
      await page.goto(`/login?interaction=${APP_REQUEST.uid}`)
      await h1(page, 'Sign in')
      await page.getByText('Sign in to continue to Team Wiki').waitFor()
    },
  },
  {
    name: 'app-access-denied',
    who: 'visitor',
    async open(page) {
      await appRequest(page, { refusal: 'role' })
      await page.goto(`/login?interaction=${APP_REQUEST.uid}`)
      await h1(page, 'You do not have access to Team Wiki')
    },
  },
  {
    name: 'app-request-expired',
    who: 'visitor',
    failedRequests: [404],
    async open(page) {
      await appRequest(page, 'expired')
      await page.goto(`/login?interaction=${APP_REQUEST.uid}`)
      await h1(page, 'This sign-in request has expired')
    },
  },
  {
    name: 'account-status-from-app',
    who: 'visitor',
    async open(page) {
      await page.goto('/account-status?status=suspended&email=someone%40example.com')
      await page.evaluate((app) => sessionStorage.setItem('accounts.appInteraction', JSON.stringify(app)), { uid: APP_REQUEST.uid, app: 'Team Wiki' })
      await page.reload()
      await page.getByRole('button', { name: 'Return to Team Wiki' }).waitFor()
      return async () => {
        await page.goto('/account-status')
        await page.evaluate(() => sessionStorage.clear())
      }
    },
  },
  {
    // A sign-in link that cannot go back to any app: the server answers it with the web app, the error named in the page.
    name: 'oidc-protocol-error',
    who: 'visitor',
    failedRequests: [400],
    async open(page) {
      const index = await (await page.request.get('/login')).text()
      await page.route('**/oidc/auth?**', (route) =>
        route.fulfill({ status: 400, contentType: 'text/html', body: index.replace('<head>', '<head><meta name="oidc-error" content="invalid_redirect_uri">') }),
      )
      await page.goto('/oidc/auth?client_id=team-wiki&redirect_uri=https%3A%2F%2Fevil.example.com')
      await h1(page, 'This sign-in link does not work')
    },
  },
  {
    // An app's sign-out (RP-initiated logout): the server answers it with the web app, the form's action and the app in the page.
    name: 'oidc-logout-confirm',
    who: 'visitor',
    async open(page) {
      const index = await (await page.request.get('/login')).text()
      const metas =
        '<meta name="oidc-logout-action" content="/oidc/session/end/confirm"><meta name="oidc-logout-xsrf" content="x"><meta name="oidc-app-name" content="Team Wiki">'
      await page.route('**/oidc/session/end?**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: index.replace('<head>', `<head>${metas}`) }))
      await page.goto('/oidc/session/end?client_id=team-wiki')
      await h1(page, 'Sign out of Team Wiki?')
    },
  },
  {
    name: 'oidc-signed-out',
    who: 'visitor',
    async open(page) {
      const index = await (await page.request.get('/login')).text()
      await page.route('**/oidc/session/end/success?**', (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: index.replace('<head>', '<head><meta name="oidc-signed-out" content="Team Wiki">') }),
      )
      await page.goto('/oidc/session/end/success?state=x')
      await h1(page, 'You have signed out')
    },
  },

  // Signed in as an administrator.
  at('admin', 'dashboard', '/dashboard', /^Welcome back, /),
  {
    name: 'account-menu',
    who: 'admin',
    within: '[role="menu"]',
    async open(page) {
      await page.goto('/dashboard')
      await page.getByRole('button', { name: /^Account menu for / }).click()
      await page.getByRole('menu').waitFor()
    },
  },
  {
    name: 'menu-sheet',
    who: 'admin',
    within: '[role="dialog"]',
    phoneOnly: true,
    async open(page) {
      await page.setViewportSize({ width: 360, height: 740 })
      await page.goto('/dashboard')
      await page.getByRole('button', { name: 'Open menu' }).click()
      await page.getByRole('dialog', { name: 'Menu' }).waitFor()
    },
  },
  at('admin', 'profile', '/profile', 'Profile'),
  {
    name: 'profile-security',
    who: 'admin',
    async open(page) {
      // Another device in the signed-in devices list, with its Sign out button.
      await signInElsewhere(page)
      await page.goto('/profile')
      await page.getByRole('tab', { name: 'Security' }).click()
      await page.getByLabel('Current Password').waitFor()
      await page.getByRole('list', { name: 'Signed-in devices' }).getByText('Firefox 133 on Windows').first().waitFor()
    },
  },
  {
    name: 'sign-out-other-devices-dialog',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await signInElsewhere(page)
      await page.goto('/profile')
      await page.getByRole('tab', { name: 'Security' }).click()
      await page.getByRole('button', { name: 'Sign out of all other devices' }).click()
      await page.getByRole('dialog', { name: 'Sign out of all other devices?' }).waitFor()
    },
  },
  {
    name: 'profile-two-factor-password',
    who: 'two-factor',
    async open(page) {
      await twoFactorPassword(page, 'Set up two-factor authentication')
    },
  },
  {
    name: 'profile-two-factor-scan',
    who: 'two-factor',
    async open(page) {
      const section = await twoFactorPassword(page, 'Set up two-factor authentication')
      await section.getByLabel('Current password').fill(twoFactorUser.password)
      await section.getByRole('button', { name: 'Continue' }).click()
      await section.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor()
    },
  },
  {
    name: 'profile-two-factor-recovery-codes',
    who: 'two-factor',
    async open(page) {
      const section = await twoFactorPassword(page, 'Set up two-factor authentication')
      await section.getByLabel('Current password').fill(twoFactorUser.password)
      await section.getByRole('button', { name: 'Continue' }).click()
      const secret = ((await section.getByTestId('totp-secret').textContent()) ?? '').replace(/\s+/g, '')
      await section.getByLabel('Code from the app').fill(appCode(secret))
      await section.getByRole('button', { name: 'Turn on' }).click()
      await section.getByRole('list', { name: 'Your recovery codes' }).waitFor()
      await toast(page, 'Two-factor authentication is on').waitFor()
      // Off again afterwards, so the setup screens find it off whatever the order.
      const session = await storedSession(page)
      return async () => {
        const off = await callApi(e2e.server, 'POST', '/auth/mfa/totp/disable', {
          body: { password: twoFactorUser.password },
          session: { accessToken: session.accessToken!, csrfToken: session.csrfToken! },
        })
        expect(off.status).toBe(200)
      }
    },
  },
  {
    name: 'profile-two-factor-turn-off',
    who: 'two-factor',
    async open(page) {
      await turnOnTwoFactor(e2e.server, twoFactorUser)
      await twoFactorPassword(page, 'Turn off')
      const session = await storedSession(page)
      return async () => {
        await callApi(e2e.server, 'POST', '/auth/mfa/totp/disable', {
          body: { password: twoFactorUser.password },
          session: { accessToken: session.accessToken!, csrfToken: session.csrfToken! },
        })
      }
    },
  },
  {
    name: 'profile-passkeys',
    who: 'admin',
    async open(page) {
      await showPasskeys(page)
    },
  },
  {
    name: 'profile-passkey-rename',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await showPasskeys(page)
      await page.getByRole('button', { name: `Rename ${PASSKEYS[1].name}` }).click()
      await page.getByRole('dialog', { name: 'Rename passkey' }).getByLabel('Passkey name').waitFor()
    },
  },
  {
    name: 'profile-passkey-remove',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await showPasskeys(page)
      await page.getByRole('button', { name: `Remove ${PASSKEYS[0].name}` }).click()
      await page.getByRole('dialog', { name: 'Remove this passkey?' }).waitFor()
    },
  },
  {
    name: 'profile-connected-apps',
    who: 'admin',
    async open(page) {
      await showConnectedApps(page)
    },
  },
  {
    name: 'profile-connected-app-remove',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await showConnectedApps(page)
      await page.getByRole('button', { name: `Remove access of ${CONNECTED_APPS[0].name}` }).click()
      await page.getByRole('dialog', { name: 'Remove this app’s access?' }).waitFor()
    },
  },
  {
    // An administrator's "Delete account" says why it does nothing (an admin cannot delete their own account).
    name: 'profile-own-data-admin',
    who: 'admin',
    async open(page) {
      await page.goto('/profile')
      await page.getByRole('tab', { name: 'Security' }).click()
      await page.getByText('Administrators cannot delete their own account: another administrator must change your role first.').waitFor()
    },
  },
  {
    // Everything the dialog can show: two-factor on, passkeys, connected apps by name, a field's error.
    name: 'profile-delete-account',
    who: 'developer',
    within: '[role="dialog"]',
    async open(page) {
      await page.route('**/api/auth/mfa', (route) => route.fulfill(answer(200, { success: true, data: { totp: true, recoveryCodesLeft: 9, passkeys: 2 } })))
      await page.route('**/api/auth/passkeys', (route) =>
        route.request().method() === 'GET' ? route.fulfill(answer(200, { success: true, data: { passkeys: PASSKEYS } })) : route.continue(),
      )
      await page.route('**/api/auth/applications', (route) =>
        route.request().method() === 'GET' ? route.fulfill(answer(200, { success: true, data: { applications: CONNECTED_APPS } })) : route.continue(),
      )
      await page.goto('/profile')
      await page.getByRole('tab', { name: 'Security' }).click()
      await page.getByRole('region', { name: 'Your data' }).getByRole('button', { name: 'Delete account' }).click()
      const dialog = page.getByRole('dialog', { name: 'Delete your account?' })
      await dialog.getByLabel('Code from your authenticator app').waitFor()
      await dialog.getByRole('button', { name: 'Delete my account' }).click()
      await dialog.getByText('Current password is required').waitFor()
    },
  },
  {
    name: 'consent',
    who: 'admin',
    async open(page) {
      await appRequest(page, { prompt: 'consent' })
      await page.goto(`/consent?interaction=${APP_REQUEST.uid}`)
      await h1(page, 'Team Wiki wants to:')
    },
  },
  {
    name: 'login-passkey-not-used',
    who: 'visitor',
    async open(page) {
      // At 127.0.0.1 no passkey can be used (WebAuthn refuses an IP address): the page says so.
      await page.goto('/login')
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
      await page.getByRole('alert').filter({ hasText: 'No passkey was used.' }).waitFor()
    },
  },
  {
    name: 'profile-picture-refused',
    who: 'admin',
    async open(page) {
      await page.goto('/profile')
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Change Picture' }).click()])
      await chooser.setFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') })
      await page.getByRole('alert').filter({ hasText: 'Please select a valid image file' }).waitFor()
    },
  },
  at('admin', 'settings', '/settings', 'Settings'),
  at('admin', 'my-activity', '/my-activity', 'My Activity', (page) => page.getByRole('list', { name: 'Activity entries' }).waitFor()),
  {
    name: 'my-activity-nothing-found',
    who: 'admin',
    async open(page) {
      await page.goto('/my-activity')
      await page.getByLabel('Search activities').fill('nothing-like-this')
      await page.getByText('Try adjusting your filters').waitFor()
    },
  },
  {
    name: 'my-activity-error',
    who: 'admin',
    failedRequests: [500],
    async open(page) {
      await page.route('**/api/activity?**', (route) => route.fulfill(failing))
      await page.goto('/my-activity')
      await page.getByRole('button', { name: 'Retry' }).waitFor()
      await toast(page, 'Internal server error').waitFor()
    },
  },
  at('admin', 'admin-dashboard', '/admin', 'Admin Dashboard', (page) => page.getByRole('heading', { name: 'Total Users' }).waitFor()),
  {
    name: 'admin-dashboard-sign-ups-table',
    who: 'admin',
    async open(page) {
      await page.goto('/admin')
      await page.getByText('Show as table').click()
      await page.getByRole('table', { name: 'Sign-ups, last 30 days' }).waitFor()
      // The chart is drawn (uPlot and its stylesheet loaded with the card).
      await page.locator('.uplot canvas').waitFor()
    },
  },
  {
    name: 'admin-dashboard-error',
    who: 'admin',
    failedRequests: [500],
    async open(page) {
      await page.route('**/api/admin/stats', (route) => route.fulfill(failing))
      await page.goto('/admin')
      await page.getByText('Error Loading Dashboard').waitFor()
      await toast(page, 'Internal server error').waitFor()
    },
  },
  at('admin', 'user-management', '/admin/users', /^User Management \(\d+\)$/),
  // Sorted by a column (its header's aria-sort and arrow), with the verification, two-factor
  // and dormancy filters set and the last sign-in column showing.
  at('admin', 'user-management-sorted-filtered', '/admin/users?sort=lastSignInAt&order=asc&verified=true&mfa=false&inactive=365', /^User Management \(\d+\)$/),
  {
    name: 'user-management-unavailable-actions',
    who: 'admin',
    within: '[role="menu"]',
    open: (page) => openActions(page, admin),
  },
  {
    name: 'user-management-unavailable-action-reason',
    who: 'admin',
    within: '[role="menu"]',
    async open(page) {
      await openActions(page, activeClient)
      await page.getByRole('menuitem', { name: 'Delete' }).focus()
      await page.getByRole('tooltip').filter({ hasText: 'User must be inactive before deletion' }).waitFor()
    },
  },
  {
    name: 'user-management-edit-user',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await openActions(page, activeClient)
      await page.getByRole('menuitem', { name: 'Edit' }).click()
      await page.getByRole('dialog', { name: 'Edit User' }).waitFor()
    },
  },
  {
    name: 'user-management-confirm-deletion',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await openActions(page, inactiveClient)
      await page.getByRole('menuitem', { name: 'Delete' }).click()
      await page.getByRole('dialog', { name: 'Confirm User Deletion' }).waitFor()
    },
  },
  {
    name: 'user-management-invite-user',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await page.goto('/admin/users')
      await page.getByRole('button', { name: 'Invite user' }).click()
      const dialog = page.getByRole('dialog', { name: 'Invite User' })
      await dialog.getByRole('button', { name: 'Send invitation' }).click()
      await dialog.getByText('Invalid email address').waitFor()
    },
  },
  {
    name: 'user-management-sign-out-everywhere',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await openActions(page, activeClient)
      await page.getByRole('menuitem', { name: 'Sign out everywhere' }).click()
      await page.getByRole('dialog', { name: 'Sign Out Everywhere' }).waitFor()
    },
  },
  {
    name: 'user-management-no-users',
    who: 'admin',
    async open(page) {
      await page.goto('/admin/users')
      await page.getByLabel('Search users').fill('nothing-like-this')
      await page.getByText('No users found').waitFor()
    },
  },
  at('admin', 'applications', '/admin/applications', 'Applications'),
  {
    name: 'applications-new-application',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await page.goto('/admin/applications')
      await page.getByRole('button', { name: 'New application' }).click()
      const dialog = page.getByRole('dialog', { name: 'New Application' })
      await dialog.getByRole('button', { name: 'Create application' }).click()
      await dialog.getByText('Application name is required').waitFor()
    },
  },
  {
    name: 'applications-client-secret',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await page.goto('/admin/applications')
      await page.getByRole('button', { name: 'New application' }).click()
      const dialog = page.getByRole('dialog', { name: 'New Application' })
      await dialog.getByLabel('Name').fill('Accessibility Wiki')
      await dialog.getByLabel(/^Redirect URIs/).fill('https://wiki.example.com/callback')
      await dialog.getByRole('button', { name: 'Create application' }).click()
      await page.getByRole('dialog', { name: 'Client Credentials' }).getByRole('textbox', { name: 'End session endpoint' }).waitFor()
    },
  },
  {
    name: 'applications-none',
    who: 'admin',
    async open(page) {
      await page.route('**/api/admin/applications', (route) =>
        route.request().method() === 'GET' ? route.fulfill(answer(200, { success: true, data: { applications: [] } })) : route.continue(),
      )
      await page.goto('/admin/applications')
      await page.getByText('docs/sign-in-with-accounts.md').waitFor()
    },
  },
  {
    name: 'application-page',
    who: 'admin',
    async open(page) {
      await page.route(`**/api/admin/applications/${APPLICATION.id}`, (route) => route.fulfill(answer(200, { success: true, data: { application: APPLICATION } })))
      await page.goto(`/admin/applications/${APPLICATION.id}`)
      await h1(page, APPLICATION.name)
      await page.getByRole('textbox', { name: 'End session endpoint' }).waitFor()
    },
  },
  { name: 'service-application-page', who: 'admin', open: showServiceApplication },
  {
    name: 'service-application-new-key',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await showServiceApplication(page)
      await page.getByLabel('Key name').fill('New key')
      await page.getByRole('button', { name: 'Create key' }).click()
      await page.getByRole('dialog', { name: 'New API Key' }).getByRole('button', { name: 'Copy API key' }).waitFor()
    },
  },
  {
    name: 'applications-new-service',
    who: 'admin',
    within: '[role="dialog"]',
    async open(page) {
      await page.goto('/admin/applications')
      await page.getByRole('button', { name: 'New application' }).click()
      const dialog = page.getByRole('dialog', { name: 'New Application' })
      await dialog.getByRole('radio', { name: 'Service' }).check()
      await dialog.getByRole('button', { name: 'Create application' }).click()
      await dialog.getByText('Choose at least one scope').waitFor()
    },
  },
  at('admin', 'activity-logs', '/admin/activity-logs', 'Activity Logs', (page) => page.getByRole('list', { name: 'Activity entries' }).waitFor()),
  at('admin', 'activity-logs-date-range', '/admin/activity-logs?from=2020-01-01&to=2099-12-31', 'Activity Logs', (page) =>
    page.getByRole('list', { name: 'Activity entries' }).waitFor(),
  ),
  {
    name: 'activity-logs-nothing-found',
    who: 'admin',
    async open(page) {
      await page.goto('/admin/activity-logs')
      await page.getByLabel('Activity type').selectOption({ label: 'Password Reset' })
      await page.getByLabel('Search activities').fill('nothing-like-this')
      await page.getByText('Try adjusting your filters').waitFor()
    },
  },
  {
    name: 'activity-logs-error',
    who: 'admin',
    failedRequests: [500],
    async open(page) {
      await page.route('**/api/admin/activity-logs?**', (route) => route.fulfill(failing))
      await page.goto('/admin/activity-logs')
      await page.getByText('Error Loading Activity Logs').waitFor()
      await toast(page, 'Internal server error').waitFor()
    },
  },
  at('admin', 'debug-signed-in', '/debug', 'Auth Debug'),

  // The developer's and the moderator's own pages.
  at('developer', 'developer-dashboard', '/developer', 'Developer Dashboard'),
  // Access Denied inside the app's frame, for a signed-in user sent there.
  at('developer', 'unauthorized-signed-in', '/admin', 'Access Denied', (page) => page.getByRole('navigation', { name: 'Side menu' }).first().waitFor()),
  {
    name: 'developer-change-status',
    who: 'developer',
    within: '[role="menu"]',
    async open(page) {
      await page.goto('/developer')
      await page.getByRole('button', { name: 'Change status of Billing API v2' }).click()
      await page.getByRole('menu').waitFor()
    },
  },
  at('moderator', 'moderator-dashboard', '/moderator', 'Moderator Dashboard'),
  {
    name: 'moderator-change-status',
    who: 'moderator',
    within: '[role="menu"]',
    async open(page) {
      await page.goto('/moderator')
      await page.getByRole('button', { name: 'Change status of the comment by Globex' }).click()
      await page.getByRole('menu').waitFor()
    },
  },
]

const pages = new Map<string, AppPage>()

/** One browser context per kind of visitor and language, signed in once. */
async function pageFor(who: Who, language: 'en' | 'de' = 'en'): Promise<AppPage> {
  const key = `${who}-${language}`
  const existing = pages.get(key)
  if (existing) return existing
  const app = await openApp(e2e.browser, e2e.server.url, { reducedMotion: 'reduce', colorScheme: 'light' })
  if (language !== 'en') {
    await app.context.addInitScript((chosen) => localStorage.setItem('accounts.settings', JSON.stringify({ language: chosen })), language)
  }
  const accounts = { admin: e2e.server.admin, developer: developer, moderator: moderator, 'two-factor': twoFactorUser }
  if (who !== 'visitor') await openSignedIn(app.page, e2e.server, accounts[who])
  pages.set(key, app)
  return app
}

let developer: Account
let moderator: Account

beforeAll(async () => {
  admin = await e2e.accounts.findUser(e2e.server.admin.email)
  ;[developer, moderator, activeClient, inactiveClient] = [
    await e2e.accounts.create({ role: 'DEVELOPER' }),
    await e2e.accounts.create({ role: 'MODERATOR' }),
    await e2e.accounts.create(),
    await e2e.accounts.create({ status: 'INACTIVE' }),
  ]
  ;[twoFactorUser, secondStepUser] = [await e2e.accounts.create(), await e2e.accounts.create()]
  await turnOnTwoFactor(e2e.server, secondStepUser)
})

afterAll(async () => {
  await Promise.all([...pages.values()].map((app) => app.context.close()))
})

function unexpectedErrors(app: AppPage, statuses: number[] = []): string[] {
  return app.errors.filter((error) => !statuses.some((status) => new RegExp(`status of ${status}\\b`).test(error)))
}

describe('every screen, light and dark, desktop and phone', () => {
  test.each(SCREENS.map((screen, index) => [screen.name, screen, index] as const))('%s', async (_name, screen, index) => {
    const app = await pageFor(screen.who)
    const { page } = app
    app.errors.length = 0
    await page.setViewportSize(SIZES[0])
    await page.emulateMedia({ colorScheme: 'light' })
    const undo = await screen.open(page)
    try {
      const problems: string[] = []
      for (const size of screen.phoneOnly ? [SIZES[1]] : SIZES) {
        await page.setViewportSize(size)
        for (const theme of ['light', 'dark'] as const) {
          await useTheme(page, theme)
          await settle(page, screen.name === 'verify-email-verifying')
          const where = `${screen.name}, ${theme}, ${size.width} px`
          const violations = await axeViolations(page, screen.within, theme === 'light' ? 'all' : 'colours')
          if (violations.length > 0) problems.push(`${where}: ${JSON.stringify(violations, null, 2)}`)
          if (theme === 'light') {
            // Sizes and breaks are the same in both themes.
            const overflow = await horizontalOverflow(page)
            if (overflow > 0) problems.push(`${where}: scrolls sideways by ${overflow} px`)
            problems.push(...(await textProblems(page)).map((problem) => `${where}: ${problem}`))
          }
          await screenshot(page, `${String(index + 1).padStart(2, '0')}-${screen.name}-${size.label}-${theme}`)
        }
      }
      expect(problems).toEqual([])
      expect(unexpectedErrors(app, screen.failedRequests), 'console errors').toEqual([])
    } finally {
      // Leave the screen first: a request it held back, released now, then ends with the page
      // instead of answering (and logging) during the next screen.
      await page.goto('about:blank').catch(() => undefined)
      await undo?.()
      await page.unrouteAll({ behavior: 'ignoreErrors' })
    }
  })
})

describe('in German, the longest texts, on a phone in the dark theme', () => {
  test('every page passes and fits', async () => {
    const problems: string[] = []
    for (const screen of SCREENS.filter((candidate) => candidate.path)) {
      const app = await pageFor(screen.who, 'de')
      const { page } = app
      await page.setViewportSize(SIZES[1])
      await page.emulateMedia({ colorScheme: 'dark' })
      await page.goto(screen.path!)
      await page.getByRole('heading', { level: 1 }).first().waitFor()
      await page.waitForFunction(() => document.documentElement.lang === 'de')
      await settle(page, false)
      const violations = await axeViolations(page)
      if (violations.length > 0) problems.push(`${screen.path}: ${JSON.stringify(violations, null, 2)}`)
      const overflow = await horizontalOverflow(page)
      if (overflow > 0) problems.push(`${screen.path}: scrolls sideways by ${overflow} px`)
      problems.push(...(await textProblems(page)).map((problem) => `${screen.path}: ${problem}`))
      expect(unexpectedErrors(app), `console errors on ${screen.path}`).toEqual([])
    }
    expect(problems).toEqual([])
  })
})

describe('long names and e-mail addresses, from a 360 px phone to a wide screen', () => {
  test('words and addresses break only where they cannot fit, and nothing scrolls sideways', async () => {
    const long = { name: 'Bartholomew Featherstonehaugh', email: uniqueEmail('bartholomew.featherstonehaugh.longdomain') }
    const who = {
      admin: await e2e.accounts.create({ ...long, role: 'ADMIN' }),
      moderator: await e2e.accounts.create({ name: 'Test MODERATOR', email: uniqueEmail('newperson'), role: 'MODERATOR' }),
      developer: await e2e.accounts.create({
        name: 'Maximiliana Oppenheimer-Wolkenstein',
        email: uniqueEmail('maximiliana.oppenheimer-wolkenstein.subdomain'),
        role: 'DEVELOPER',
      }),
    }
    const visits: Array<[keyof typeof who | 'visitor', string[]]> = [
      ['admin', ['/dashboard', '/profile', '/settings', '/my-activity', '/admin', '/admin/users', '/admin/activity-logs', '/debug']],
      ['moderator', ['/dashboard', '/moderator']],
      ['developer', ['/dashboard', '/developer']],
      [
        'visitor',
        [
          '/login',
          '/register',
          '/forgot-password',
          '/reset-password?token=abc',
          `/verify-email?email=${encodeURIComponent(long.email)}`,
          `/account-status?status=suspended&email=${encodeURIComponent(long.email)}`,
        ],
      ],
    ]
    const problems: string[] = []
    for (const [person, addresses] of visits) {
      const { page } = await e2e.open({ reducedMotion: 'reduce' })
      if (person !== 'visitor') await openSignedIn(page, e2e.server, who[person])
      for (const width of [360, 768, 1024, 1280]) {
        await page.setViewportSize({ width, height: 800 })
        for (const address of addresses) {
          await page.goto(address)
          await page.getByRole('heading', { level: 1 }).first().waitFor()
          await settle(page, false)
          const where = `${person} ${address}, ${width} px`
          const overflow = await horizontalOverflow(page)
          if (overflow > 0) problems.push(`${where}: scrolls sideways by ${overflow} px`)
          problems.push(...(await textProblems(page)).map((problem) => `${where}: ${problem}`))
          await screenshot(page, `long-names-${person}-${width}-${address.split('?')[0]!.replace(/\W+/g, '-')}`)
        }
      }
    }
    expect(problems).toEqual([])
  })
})
