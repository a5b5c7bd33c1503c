import { type Browser, type BrowserContext, type Locator, type Page, chromium } from 'playwright-core'
import { inject } from 'vitest'
import { type SignedInSession, signInThroughApi } from './accounts'

/** A browser that has not started by then will not: say why at once instead of waiting minutes. */
const LAUNCH_TIMEOUT_MS = 30_000

/**
 * Chromium as found once per run (tests/e2e/support/global-setup.ts), started headless, with any
 * further switches a test needs (e.g. `--host-resolver-rules`).
 */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const install = inject('chromium')
  if ('error' in install) throw new Error(`Chromium is not available: ${install.error}`)
  try {
    return await chromium.launch({
      executablePath: install.executablePath,
      env: { ...process.env, ...install.env } as Record<string, string>,
      timeout: LAUNCH_TIMEOUT_MS,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        ...extraArgs,
      ],
    })
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
    throw new Error(`Chromium (${install.source}, ${install.executablePath}) did not start: ${reason}`)
  }
}

export interface AppPage {
  context: BrowserContext
  page: Page
  /** Console errors and uncaught exceptions of the page, to assert there were none. */
  errors: string[]
  /** The console errors that are not expected (see `expectFailedRequests`). */
  unexpectedErrors(): string[]
  /**
   * Failed requests with these statuses are part of the story (a wrong password's 401): Chromium
   * logs each as a console error, which is then not a fault of the page.
   */
  expectFailedRequests(...statuses: number[]): void
  /** Console errors matching this are part of the story. */
  expectConsoleError(pattern: RegExp): void
}

export interface OpenOptions {
  viewport?: { width: number; height: number }
  colorScheme?: 'light' | 'dark'
  reducedMotion?: 'reduce' | 'no-preference'
  /** The browser's language (navigator.languages and Accept-Language), e.g. 'de-DE'; default en-US. */
  locale?: string
  context?: BrowserContext
}

export async function openApp(browser: Browser, baseURL: string, options: OpenOptions = {}): Promise<AppPage> {
  const context =
    options.context ??
    (await browser.newContext({
      baseURL,
      viewport: options.viewport ?? { width: 1280, height: 800 },
      colorScheme: options.colorScheme ?? 'light',
      reducedMotion: options.reducedMotion ?? 'no-preference',
      locale: options.locale ?? 'en-US',
    }))
  const page = await context.newPage()
  const errors: string[] = []
  const allowed: RegExp[] = []
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    // The browser's own request for another party's icon (SimpleSAMLphp's pages have none, and
    // Debian's Chromium asks for it): not the page's error, and not the product's.
    const { url } = message.location()
    if (url.endsWith('/favicon.ico') && !url.startsWith(baseURL)) return
    errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return {
    context,
    page,
    errors,
    unexpectedErrors: () => errors.filter((error) => !allowed.some((pattern) => pattern.test(error))),
    expectFailedRequests: (...statuses) => statuses.forEach((status) => allowed.push(new RegExp(`status of ${status}\\b`))),
    expectConsoleError: (pattern) => allowed.push(pattern),
  }
}

/** Signs in through the sign-in page, as a person does. */
export async function signInThroughPage(page: Page, account: { email: string; password: string }): Promise<void> {
  if (!page.url().includes('/login')) await page.goto('/login')
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password', { exact: true }).fill(account.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

/**
 * Opens `target` already signed in: the session is obtained through the API and stored where the
 * app keeps it, for tests whose subject is not the sign-in page.
 */
export async function openSignedIn(page: Page, server: { url: string }, account: { email: string; password: string }, target = '/dashboard'): Promise<SignedInSession> {
  const session = await signInThroughApi(server, account.email, account.password)
  // A blank page of the app's origin (answered here, not by the server), so the session is stored
  // before the app starts.
  const blank = `${server.url}/__blank-for-storage`
  await page.route(blank, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,">' }))
  await page.goto(blank)
  await page.unroute(blank)
  await page.evaluate((stored) => {
    localStorage.setItem('user', JSON.stringify(stored.user))
    localStorage.setItem('refreshToken', stored.refreshToken)
    localStorage.setItem('csrfToken', stored.csrfToken)
    localStorage.setItem('accessToken', stored.accessToken)
  }, session)
  await page.goto(target)
  return session
}

/** What assistive technology announces as the element's description (its aria-describedby text). */
export async function accessibleDescription(locator: Locator): Promise<string> {
  return locator.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => element.ownerDocument.getElementById(id)?.textContent?.trim() ?? '')
      .join(' '),
  )
}

/** The texts of the links in a menu (the side column, the small-screen sheet), in order. */
export async function linkTexts(container: Locator): Promise<string[]> {
  return (await container.getByRole('link').allInnerTexts()).map((text) => text.trim())
}

/** A toast (they sit top-right, in the region named after the app) showing this text (the newest, if several). */
export function toast(page: Page, text: string | RegExp): Locator {
  return page
    .getByRole('region', { name: /^Accounts/ })
    .getByRole('listitem')
    .filter({ hasText: text })
    .first()
}

/** The values of the browser storage keys that hold the session. */
export async function storedSession(page: Page): Promise<Record<'accessToken' | 'refreshToken' | 'user' | 'csrfToken', string | null>> {
  return page.evaluate(() => ({
    accessToken: localStorage.getItem('accessToken'),
    refreshToken: localStorage.getItem('refreshToken'),
    user: localStorage.getItem('user'),
    csrfToken: localStorage.getItem('csrfToken'),
  }))
}
