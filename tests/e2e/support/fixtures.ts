import type { Browser } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { type Accounts, accountsOn } from './accounts'
import { type AppPage, type OpenOptions, launchBrowser, openApp } from './browser'
import { type RunningServer, startServer } from './server'

/**
 * One server and one browser for a test file. Every page a test opens is closed after it, and
 * the test fails if the page logged a console error it did not expect. Accounts made through
 * `accounts` are deleted at the end, then the server and its data go.
 */
export interface BrowserTests {
  readonly server: RunningServer
  readonly browser: Browser
  readonly accounts: Accounts
  /** A fresh browser context (its own storage) with one page of the app. */
  open(options?: OpenOptions): Promise<AppPage>
  /** Another page in the same context (a second tab). */
  openTab(app: AppPage): Promise<AppPage>
}

export function browserTests(options: { env?: Record<string, string>; browserArgs?: string[]; host?: 'localhost' | '127.0.0.1' } = {}): BrowserTests {
  let server: RunningServer | undefined
  let browser: Browser | undefined
  let accounts: Accounts | undefined
  const opened: AppPage[] = []

  beforeAll(async () => {
    // Both are kept even when the other fails, so afterAll stops whatever did start.
    const [started, launched] = await Promise.allSettled([
      startServer({ env: options.env ?? {}, ...(options.host ? { host: options.host } : {}) }),
      launchBrowser(options.browserArgs),
    ])
    if (started.status === 'fulfilled') server = started.value
    if (launched.status === 'fulfilled') browser = launched.value
    if (started.status === 'rejected') throw started.reason
    if (launched.status === 'rejected') throw launched.reason
    accounts = accountsOn(started.value)
  })

  afterEach(async () => {
    const pages = opened.splice(0)
    const unexpected = pages.flatMap((app) => app.unexpectedErrors())
    await Promise.all([...new Set(pages.map((app) => app.context))].map((context) => context.close()))
    expect(unexpected, 'console errors in the page').toEqual([])
  })

  afterAll(async () => {
    // Each step runs whatever the one before did: a failed clean-up never leaves a process behind.
    try {
      await accounts?.removeAll()
    } finally {
      try {
        await browser?.close()
      } finally {
        await server?.stop()
      }
    }
  })

  const need = <T>(value: T | undefined, what: string): T => {
    if (!value) throw new Error(`${what} is not started (beforeAll failed?)`)
    return value
  }

  return {
    get server() {
      return need(server, 'the server')
    },
    get browser() {
      return need(browser, 'the browser')
    },
    get accounts() {
      return need(accounts, 'the accounts helper')
    },
    async open(openOptions) {
      const app = await openApp(need(browser, 'the browser'), need(server, 'the server').url, openOptions)
      opened.push(app)
      return app
    },
    async openTab(app) {
      const tab = await openApp(need(browser, 'the browser'), need(server, 'the server').url, { context: app.context })
      opened.push(tab)
      return tab
    },
  }
}
