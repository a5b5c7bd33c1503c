import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { LinkedIdentity } from '~shared/schemas/federation'
import type { IdentityProvider } from '~shared/schemas/identity-providers'
import type { Account } from './support/accounts'
import { problemsOf, screenshot, settle, SIZES, useTheme } from './support/accessibility'
import { type AppPage, openApp, openSignedIn } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * The Sign-in methods page and the Security tab's linked sign-in methods, as
 * tests/e2e/accessibility.test.ts checks every other screen: axe-core finds no WCAG 2.1 A/AA
 * violation in the light and in the dark theme, at 1280 px and on a 360 px phone; nothing scrolls
 * sideways, no word is broken where it would fit, no placeholder is cut off. The lists are answered
 * here (long names, every kind, many domains), so each state shows whatever the server holds.
 * Screenshots go to test-results/screenshots/ with SCREENSHOTS=1.
 */
const e2e = browserTests()

const provider = (overrides: Partial<IdentityProvider>): IdentityProvider => ({
  id: 'idp_companyssocompanysso',
  kind: 'oidc',
  name: 'Company SSO (Engineering and Operations)',
  enabled: true,
  showOnSignIn: true,
  issuer: 'https://sso.internal.example-corporation.com/realms/engineering-and-operations',
  tenant: null,
  clientId: 'accounts',
  hasClientSecret: true,
  scopes: ['openid', 'email', 'profile'],
  baseUrl: null,
  samlMetadataXml: null,
  samlEmailAttribute: null,
  samlNameAttribute: null,
  emailDomains: ['example-corporation.com', 'engineering.example-corporation.com', 'example.org'],
  trustEmail: false,
  allowSignUp: true,
  defaultRole: 'CLIENT',
  roleRules: [
    { claim: 'groups', value: 'engineering-platform-team', role: 'DEVELOPER' },
    { claim: 'roles', value: 'accounts-admins', role: 'ADMIN' },
  ],
  syncRoles: true,
  createdAt: '2026-05-01T10:00:00.000Z',
  updatedAt: '2026-05-01T10:00:00.000Z',
  ...overrides,
})
const LONG_NAME = provider({}).name
const PROVIDERS: IdentityProvider[] = [
  provider({}),
  provider({ id: 'idp_googlegooglegooglego', kind: 'google', name: 'Google', issuer: null, emailDomains: [], roleRules: [], trustEmail: true }),
  provider({ id: 'idp_microsoftmicrosoftmi', kind: 'microsoft', name: 'Entra ID', issuer: null, tenant: 'organizations', emailDomains: ['example.com'] }),
  provider({ id: 'idp_githubgithubgithubgi', kind: 'github', name: 'GitHub', issuer: null, baseUrl: 'https://github.com', enabled: false, emailDomains: [] }),
  provider({
    id: 'idp_oktaoktaoktaoktaokta',
    kind: 'saml',
    name: 'Okta',
    issuer: null,
    clientId: null,
    hasClientSecret: false,
    scopes: null,
    samlMetadataXml: `<?xml version="1.0"?>\n<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="http://www.okta.com/exk1234567890abcdefgh">\n  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">\n    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://example-corporation.okta.com/app/accounts/exk1234567890abcdefgh/sso/saml"/>\n  </md:IDPSSODescriptor>\n</md:EntityDescriptor>`,
    samlEmailAttribute: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
    emailDomains: [],
  }),
]
const IDENTITIES: LinkedIdentity[] = [
  {
    id: 'fid-1',
    providerId: PROVIDERS[0]!.id,
    providerName: LONG_NAME,
    kind: 'oidc',
    email: 'maximilian.mustermann-schmidt@engineering.example-corporation.com',
    linkedAt: '2026-05-01T10:00:00.000Z',
    lastUsedAt: '2026-05-03T10:00:00.000Z',
  },
  { id: 'fid-2', providerId: PROVIDERS[3]!.id, providerName: 'GitHub', kind: 'github', email: null, linkedAt: '2026-05-02T10:00:00.000Z', lastUsedAt: null },
]

const answer = (data: unknown) => ({ status: 200, contentType: 'application/json', body: JSON.stringify({ success: true, data }) })

async function openList(page: Page, providers: IdentityProvider[] = PROVIDERS) {
  await page.route('**/api/admin/identity-providers', (route) =>
    route.request().method() === 'GET' ? route.fulfill(answer({ identityProviders: providers })) : route.continue(),
  )
  await page.goto('/admin/sign-in-methods')
  await page.getByRole('heading', { level: 1, name: 'Sign-in methods' }).waitFor()
  if (providers.length > 0) await page.getByRole('table').waitFor()
}

async function openMenu(page: Page) {
  await openList(page)
  await page.getByRole('button', { name: `Actions for ${LONG_NAME}` }).click()
  await page.getByRole('menu').waitFor()
}

async function menuAction(page: Page, item: string, dialog: string) {
  await openMenu(page)
  await page.getByRole('menuitem', { name: item }).click()
  await page.getByRole('dialog', { name: dialog }).waitFor()
}

/** The add dialog with a kind chosen, submitted empty: every message at its field. */
async function addDialog(page: Page, kind: string) {
  await openList(page, [])
  await page.getByRole('button', { name: 'Add sign-in method' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add a sign-in method' })
  await dialog.getByRole('radio', { name: kind }).check()
  await dialog.getByRole('button', { name: 'Add a rule' }).click()
  await dialog.getByRole('button', { name: 'Add sign-in method' }).click()
  await dialog.getByText('Provider name is required').waitFor()
}

/** The dialog that follows adding `created` (the server's answer) as a `kind`: `fill` types what that kind needs besides its name. */
async function addedDialog(page: Page, kind: string, created: IdentityProvider, fill: (dialog: Locator) => Promise<unknown>) {
  await page.route('**/api/admin/identity-providers', (route) =>
    route.request().method() === 'POST' ? route.fulfill({ ...answer({ identityProvider: created }), status: 201 }) : route.fulfill(answer({ identityProviders: [] })),
  )
  await page.goto('/admin/sign-in-methods')
  await page.getByRole('button', { name: 'Add sign-in method' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add a sign-in method' })
  await dialog.getByRole('radio', { name: kind }).check()
  await dialog.getByLabel('Name', { exact: true }).fill(created.name)
  await fill(dialog)
  await dialog.getByRole('button', { name: 'Add sign-in method' }).click()
  await page.getByRole('dialog', { name: 'Sign-in method added' }).getByRole('button', { name: 'Done' }).waitFor()
}

/** The Security tab of a person with linked identities (and, with `hasPassword: false`, no password). */
async function openSecurity(page: Page, hasPassword: boolean) {
  await page.route('**/api/auth/identities', (route) => route.fulfill(answer({ identities: IDENTITIES, hasPassword })))
  await page.route('**/api/auth/identity-providers', (route) => route.fulfill(answer({ identityProviders: PROVIDERS.map(({ id, name, kind }) => ({ id, name, kind })) })))
  await page.goto('/profile?tab=security')
  await page.getByRole('list', { name: 'Linked sign-in methods' }).waitFor()
}

type Who = 'admin' | 'person'

interface Screen {
  name: string
  who: Who
  open(page: Page): Promise<void>
  /** An open menu or dialog: only it is checked, the page behind is hidden from assistive technology on purpose. */
  within?: string
}

const SCREENS: Screen[] = [
  { name: 'sign-in-methods-empty', who: 'admin', open: (page) => openList(page, []) },
  { name: 'sign-in-methods-list', who: 'admin', open: (page) => openList(page) },
  { name: 'sign-in-methods-actions-menu', who: 'admin', open: openMenu, within: '[role="menu"]' },
  { name: 'sign-in-methods-add-oidc-errors', who: 'admin', open: (page) => addDialog(page, 'OpenID Connect'), within: '[role="dialog"]' },
  { name: 'sign-in-methods-add-microsoft-errors', who: 'admin', open: (page) => addDialog(page, 'Microsoft'), within: '[role="dialog"]' },
  { name: 'sign-in-methods-add-github-errors', who: 'admin', open: (page) => addDialog(page, 'GitHub'), within: '[role="dialog"]' },
  { name: 'sign-in-methods-add-saml-errors', who: 'admin', open: (page) => addDialog(page, 'SAML 2.0'), within: '[role="dialog"]' },
  { name: 'sign-in-methods-edit', who: 'admin', open: (page) => menuAction(page, 'Edit', 'Edit sign-in method'), within: '[role="dialog"]' },
  {
    name: 'sign-in-methods-edit-saml',
    who: 'admin',
    async open(page) {
      await openList(page)
      await page.getByRole('button', { name: 'Actions for Okta' }).click()
      await page.getByRole('menuitem', { name: 'Edit' }).click()
      await page.getByRole('dialog', { name: 'Edit sign-in method' }).getByRole('textbox', { name: 'Entity ID' }).waitFor()
    },
    within: '[role="dialog"]',
  },
  {
    name: 'sign-in-methods-added-saml',
    who: 'admin',
    open: (page) => addedDialog(page, 'SAML 2.0', PROVIDERS[4]!, (dialog) => dialog.getByLabel('Identity provider metadata (XML)').fill(PROVIDERS[4]!.samlMetadataXml!)),
    within: '[role="dialog"]',
  },
  {
    name: 'sign-in-methods-added',
    who: 'admin',
    async open(page) {
      await addedDialog(page, 'Google', PROVIDERS[1]!, async (dialog) => {
        await dialog.getByLabel('Client ID').fill('1234567890-abcdefghijklmnopqrstuvwxyz.apps.googleusercontent.com')
        await dialog.getByLabel('Client secret').fill('GOCSPX-secret')
      })
    },
    within: '[role="dialog"]',
  },
  { name: 'sign-in-methods-delete-confirm', who: 'admin', open: (page) => menuAction(page, 'Delete', 'Delete sign-in method'), within: '[role="dialog"]' },
  { name: 'linked-methods', who: 'person', open: (page) => openSecurity(page, true) },
  {
    name: 'linked-methods-unlink-refused',
    who: 'person',
    async open(page) {
      await page.route('**/api/auth/identities/*', (route) =>
        route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({ success: false, message: 'Add a password or a passkey before removing your last way to sign in', code: 'LAST_SIGN_IN_METHOD' }),
        }),
      )
      await openSecurity(page, false)
      await page.getByRole('button', { name: 'Unlink GitHub' }).click()
      await page.getByRole('dialog', { name: 'Unlink this sign-in method?' }).getByRole('button', { name: 'Unlink' }).click()
      await page.getByRole('alert').filter({ hasText: 'last way to sign in' }).waitFor()
    },
  },
  {
    name: 'linked-methods-link-dialog',
    who: 'person',
    async open(page) {
      await openSecurity(page, true)
      await page.getByRole('button', { name: 'Link Google' }).click()
      await page.getByRole('dialog', { name: 'Link Google' }).waitFor()
    },
    within: '[role="dialog"]',
  },
  {
    name: 'delete-account-without-password',
    who: 'person',
    async open(page) {
      await openSecurity(page, false)
      await page.getByRole('button', { name: 'Delete account' }).click()
      await page
        .getByRole('dialog', { name: 'Delete your account?' })
        .getByRole('button', { name: `Sign in again with ${LONG_NAME}` })
        .waitFor()
    },
    within: '[role="dialog"]',
  },
]

/** One browser context per visitor and language, signed in once for every screen (closed after the last). */
const contexts = new Map<string, AppPage>()
let person: Account

async function pageFor(who: Who, language: 'en' | 'de' = 'en'): Promise<AppPage> {
  const key = `${who}-${language}`
  const existing = contexts.get(key)
  if (existing) return existing
  const app = await openApp(e2e.browser, e2e.server.url, { reducedMotion: 'reduce', colorScheme: 'light' })
  if (language !== 'en') {
    await app.context.addInitScript((chosen) => localStorage.setItem('accounts.settings', JSON.stringify({ language: chosen })), language)
  }
  await openSignedIn(app.page, e2e.server, who === 'admin' ? e2e.server.admin : person, who === 'admin' ? '/admin/sign-in-methods' : '/profile')
  contexts.set(key, app)
  return app
}

beforeAll(async () => {
  person = await e2e.accounts.create({ name: 'Maximilian Mustermann-Schmidt' })
})

afterAll(async () => {
  await Promise.all([...contexts.values()].map((app) => app.context.close()))
})

describe('sign-in methods and linked sign-in methods, light and dark, desktop and phone', () => {
  test.each(SCREENS.map((screen, index) => [screen.name, screen, index] as const))('%s', async (_name, screen, index) => {
    const app = await pageFor(screen.who)
    const { page } = app
    app.errors.length = 0
    await page.setViewportSize(SIZES[0])
    await page.emulateMedia({ colorScheme: 'light' })
    try {
      await screen.open(page)
      const problems: string[] = []
      for (const size of SIZES) {
        await page.setViewportSize(size)
        for (const theme of ['light', 'dark'] as const) {
          await useTheme(page, theme)
          await settle(page)
          problems.push(...(await problemsOf(page, `${screen.name}, ${theme}, ${size.width} px`, screen.within)))
          await screenshot(page, `${screen.name}-${String(index + 1).padStart(2, '0')}-${size.label}-${theme}`)
        }
      }
      expect(problems).toEqual([])
      expect(
        app.errors.filter((error) => !/status of 409\b/.test(error)),
        'console errors',
      ).toEqual([])
    } finally {
      await page.goto('about:blank').catch(() => undefined)
      await page.unrouteAll({ behavior: 'ignoreErrors' })
    }
  })
})

/** The same states in German, where they have the longest texts (found by structure and German names). */
async function routeLists(page: Page) {
  await page.route('**/api/admin/identity-providers', (route) => route.fulfill(answer({ identityProviders: PROVIDERS })))
  await page.route('**/api/auth/identities', (route) => route.fulfill(answer({ identities: IDENTITIES, hasPassword: false })))
  await page.route('**/api/auth/identity-providers', (route) => route.fulfill(answer({ identityProviders: PROVIDERS.map(({ id, name, kind }) => ({ id, name, kind })) })))
}

describe('in German, the longest texts, on a phone in the dark theme', () => {
  test.each([
    ['admin', 'the list', '/admin/sign-in-methods', (page: Page) => page.getByRole('table').waitFor()],
    [
      'admin',
      'the add form',
      '/admin/sign-in-methods',
      async (page: Page) => {
        await page.getByRole('button', { name: 'Anmeldemethode hinzufügen' }).click()
        await page.getByRole('dialog').getByRole('button', { name: 'Regel hinzufügen' }).click()
      },
    ],
    [
      'admin',
      'the SAML add form',
      '/admin/sign-in-methods',
      async (page: Page) => {
        await page.getByRole('button', { name: 'Anmeldemethode hinzufügen' }).click()
        await page.getByRole('dialog').getByRole('radio', { name: 'SAML 2.0' }).check()
        await page
          .getByRole('dialog')
          .getByRole('textbox', { name: /^Metadaten/ })
          .waitFor()
      },
    ],
    ['person', 'the Security tab', '/profile?tab=security', (page: Page) => page.getByRole('list', { name: 'Verknüpfte Anmeldemethoden' }).waitFor()],
  ] as const)('%s: %s passes and fits', async (who, what, address, ready) => {
    const app = await pageFor(who, 'de')
    const { page } = app
    app.errors.length = 0
    await page.setViewportSize(SIZES[1])
    await page.emulateMedia({ colorScheme: 'dark' })
    try {
      await routeLists(page)
      await page.goto(address)
      await page.waitForFunction(() => document.documentElement.lang === 'de')
      await page.getByRole('heading', { level: 1 }).first().waitFor()
      await ready(page)
      await settle(page)
      expect(await problemsOf(page, `de, ${what}`, what.endsWith('add form') ? '[role="dialog"]' : undefined)).toEqual([])
      expect(app.errors, 'console errors').toEqual([])
    } finally {
      await page.goto('about:blank').catch(() => undefined)
      await page.unrouteAll({ behavior: 'ignoreErrors' })
    }
  })
})
