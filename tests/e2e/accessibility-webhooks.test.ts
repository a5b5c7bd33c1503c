import type { Page } from 'playwright-core'
import { afterAll, describe, expect, test } from 'vitest'
import type { Webhook, WebhookDelivery } from '~shared/schemas/webhooks'
import { problemsOf, screenshot, settle, SIZES, useTheme } from './support/accessibility'
import { type AppPage, openApp, openSignedIn } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * The Webhooks page's screens, as tests/e2e/accessibility.test.ts checks every other screen:
 * axe-core finds no WCAG 2.1 A/AA violation in the light and in the dark theme, at 1280 px and on a
 * 360 px phone; nothing scrolls sideways, no word is broken where it would fit, no placeholder is
 * cut off. The list and its deliveries are answered here (long addresses, every delivery status,
 * a response body), so each state shows whatever the server holds. Screenshots go to
 * test-results/screenshots/webhooks-* with SCREENSHOTS=1.
 */
const e2e = browserTests()

const LONG_URL = 'https://provisioning.internal.example-corporation.com/integrations/accounts/webhooks/receive?tenant=engineering-and-operations'
const WEBHOOKS: Webhook[] = [
  {
    id: 'wh_long',
    url: LONG_URL,
    description: 'Seat provisioning for the engineering and operations licences (CRM, wiki, ticketing)',
    events: ['user.created', 'user.role_changed', 'user.status_changed', 'user.deleted', 'user.signed_out_everywhere', 'user.security_changed'],
    enabled: true,
    disabledReason: null,
    createdAt: '2026-05-01T10:00:00.000Z',
    updatedAt: '2026-05-01T10:00:00.000Z',
  },
  {
    id: 'wh_gone',
    url: 'http://10.0.0.7:8080/hook',
    description: '',
    events: ['*'],
    enabled: false,
    disabledReason: 'Every delivery failed for 5 days',
    createdAt: '2026-05-01T10:00:00.000Z',
    updatedAt: '2026-05-01T10:00:00.000Z',
  },
]

const delivery = (overrides: Partial<WebhookDelivery>): WebhookDelivery => ({
  id: 'd1',
  eventId: 'msg_2zQf1Vb8Kx0aLq4Rr7Yt',
  eventType: 'user.signed_out_everywhere',
  status: 'delivered',
  attempts: 1,
  lastAttemptAt: '2026-05-02T08:00:00.000Z',
  nextAttemptAt: null,
  responseStatus: 204,
  responseBody: '',
  createdAt: '2026-05-02T08:00:00.000Z',
  ...overrides,
})
const DELIVERIES: WebhookDelivery[] = [
  delivery({ id: 'd4', status: 'pending', attempts: 0, lastAttemptAt: null, responseStatus: null, responseBody: null, eventType: 'webhook.test' }),
  delivery({
    id: 'd3',
    status: 'failed',
    attempts: 3,
    nextAttemptAt: '2026-05-02T08:30:00.000Z',
    responseStatus: 500,
    responseBody: '{"error":"internal_error","message":"The provisioning database is read-only during the nightly maintenance window"}',
    eventType: 'user.security_changed',
  }),
  delivery({ id: 'd2', status: 'exhausted', attempts: 10, responseStatus: null, responseBody: null, eventType: 'user.status_changed' }),
  delivery({ id: 'd1' }),
]

const answer = (data: unknown) => ({ status: 200, contentType: 'application/json', body: JSON.stringify({ success: true, data }) })

/** The list (and each endpoint's deliveries) as given, whatever the server holds. */
async function answerList(page: Page, webhooks: Webhook[]) {
  await page.route('**/api/admin/webhooks', (route) => (route.request().method() === 'GET' ? route.fulfill(answer({ webhooks })) : route.continue()))
  await page.route('**/api/admin/webhooks/*/deliveries?*', (route) =>
    route.fulfill(answer({ deliveries: DELIVERIES, pagination: { page: 1, limit: 10, total: 14, pages: 2 } })),
  )
}

async function openList(page: Page, webhooks: Webhook[] = WEBHOOKS) {
  await answerList(page, webhooks)
  await page.goto('/admin/webhooks')
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
}

async function openDeliveries(page: Page) {
  await openList(page)
  const card = page.getByRole('region', { name: LONG_URL })
  await card.getByRole('button', { name: 'Show deliveries' }).click()
  await card.getByRole('table').waitFor()
  await card.getByText('Response body').click()
}

async function openMenu(page: Page) {
  await openList(page)
  await page.getByRole('button', { name: `Actions for ${LONG_URL}` }).click()
  await page.getByRole('menu').waitFor()
}

async function menuAction(page: Page, item: string, dialog: string) {
  await openMenu(page)
  await page.getByRole('menuitem', { name: item }).click()
  await page.getByRole('dialog', { name: dialog }).waitFor()
}

interface Screen {
  name: string
  open(page: Page): Promise<void>
  /** An open menu or dialog: only it is checked, the page behind is hidden from assistive technology on purpose. */
  within?: string
}

const SCREENS: Screen[] = [
  { name: 'webhooks-empty', open: (page) => openList(page, []) },
  { name: 'webhooks-list', open: (page) => openList(page) },
  { name: 'webhooks-deliveries', open: openDeliveries },
  { name: 'webhooks-actions-menu', open: openMenu, within: '[role="menu"]' },
  {
    name: 'webhooks-add-dialog-errors',
    async open(page) {
      await openList(page)
      await page.getByRole('button', { name: 'Add endpoint' }).click()
      const dialog = page.getByRole('dialog', { name: 'Add Webhook Endpoint' })
      await dialog.getByLabel('Endpoint URL').fill('http://169.254.169.254/latest')
      await dialog.getByRole('button', { name: 'Add endpoint' }).click()
      await dialog.getByText('Choose at least one event').waitFor()
    },
    within: '[role="dialog"]',
  },
  {
    name: 'webhooks-edit-dialog',
    open: (page) => menuAction(page, 'Edit', 'Edit Webhook Endpoint'),
    within: '[role="dialog"]',
  },
  { name: 'webhooks-rotate-confirm', open: (page) => menuAction(page, 'Rotate secret', 'Rotate Signing Secret'), within: '[role="dialog"]' },
  {
    name: 'webhooks-secret-shown',
    async open(page) {
      await page.route('**/api/admin/webhooks/*/secret', (route) => route.fulfill(answer({ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2bJbFxmWwYw=' })))
      await menuAction(page, 'Rotate secret', 'Rotate Signing Secret')
      await page.getByRole('dialog', { name: 'Rotate Signing Secret' }).getByRole('button', { name: 'Rotate secret' }).click()
      await page.getByRole('dialog', { name: 'Signing Secret' }).waitFor()
    },
    within: '[role="dialog"]',
  },
  { name: 'webhooks-delete-confirm', open: (page) => menuAction(page, 'Delete', 'Delete Webhook Endpoint'), within: '[role="dialog"]' },
]

/** The admin's browser context, signed in once for every screen (closed after the last). */
let signedIn: AppPage | undefined

async function adminPage(): Promise<AppPage> {
  if (signedIn) return signedIn
  signedIn = await openApp(e2e.browser, e2e.server.url, { reducedMotion: 'reduce', colorScheme: 'light' })
  await openSignedIn(signedIn.page, e2e.server, e2e.server.admin, '/admin/webhooks')
  return signedIn
}

afterAll(async () => {
  await signedIn?.context.close()
})

describe('the Webhooks page, light and dark, desktop and phone', () => {
  test.each(SCREENS.map((screen) => [screen.name, screen] as const))('%s', async (_name, screen) => {
    const app = await adminPage()
    const { page } = app
    app.errors.length = 0
    await page.setViewportSize(SIZES[0])
    await page.emulateMedia({ colorScheme: 'light' })
    await screen.open(page)
    try {
      const problems: string[] = []
      for (const size of SIZES) {
        await page.setViewportSize(size)
        for (const theme of ['light', 'dark'] as const) {
          await useTheme(page, theme)
          await settle(page)
          problems.push(...(await problemsOf(page, `${screen.name}, ${theme}, ${size.width} px`, screen.within)))
          await screenshot(page, `${screen.name}-${size.label}-${theme}`)
        }
      }
      expect(problems).toEqual([])
      expect(app.errors, 'console errors').toEqual([])
    } finally {
      await page.keyboard.press('Escape').catch(() => undefined)
      await page.goto('about:blank').catch(() => undefined)
      await page.unrouteAll({ behavior: 'ignoreErrors' })
    }
  })

  test('in German, the longest texts, on a phone in the dark theme, the list with its deliveries passes and fits', async () => {
    const german = await e2e.open({ viewport: { width: 360, height: 740 }, colorScheme: 'dark' })
    await german.context.addInitScript(() => localStorage.setItem('accounts.settings', JSON.stringify({ language: 'de' })))
    await openSignedIn(german.page, e2e.server, e2e.server.admin, '/dashboard')
    await answerList(german.page, WEBHOOKS)
    await german.page.goto('/admin/webhooks')
    await german.page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
    const card = german.page.getByRole('region', { name: LONG_URL })
    await card.getByRole('button', { name: 'Zustellungen anzeigen' }).click()
    await card.getByRole('table').waitFor()
    await card.getByText('Antworttext').click()
    await settle(german.page)
    expect(await problemsOf(german.page, 'webhooks-deliveries, de, dark, 360 px')).toEqual([])
    await screenshot(german.page, 'webhooks-deliveries-de-phone-dark')
  })
})
