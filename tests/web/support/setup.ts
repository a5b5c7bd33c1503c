import { cleanup, configure } from '@testing-library/react'
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest'
import { loadAppTexts, setLanguage } from '~web/lib/i18n'
import { queryClient } from '~web/lib/query-client'
import { session } from '~web/lib/session'
import { toasterWanted } from '~web/lib/toast'
import { DEFAULT_SETTINGS, settingsStore } from '~web/lib/settings'

/**
 * Imported first by every web test: browser APIs jsdom lacks, a clean slate per test (storage,
 * session, settings, language, query cache), and a failure on any unexpected console.error.
 */

// Pages are lazy chunks: the first render of one in a test run includes compiling it.
configure({ asyncUtilTimeout: 5000 })

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}

// Assigned, not stubbed: `vi.unstubAllGlobals()` after each test must not take them away.
globalThis.ResizeObserver ??= ResizeObserverStub as unknown as typeof ResizeObserver
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener() {},
      removeEventListener() {},
      addListener() {},
      removeListener() {},
      dispatchEvent: () => false,
    }) as MediaQueryList
}
Element.prototype.scrollIntoView ??= function scrollIntoView() {}
Element.prototype.hasPointerCapture ??= () => false
Element.prototype.releasePointerCapture ??= () => {}
Element.prototype.setPointerCapture ??= () => {}

// Queries retry once, without waiting between attempts in tests.
queryClient.setDefaultOptions({ queries: { retry: 1, retryDelay: 0, refetchOnWindowFocus: false }, mutations: { retry: false } })

let consoleErrors: unknown[][] = []
const allowed: RegExp[] = []

/** Lets a test expect a console.error matching this pattern. */
export function allowConsoleError(pattern: RegExp): void {
  allowed.push(pattern)
}

// Components are rendered without their routes, which would load the signed-in area's texts.
beforeAll(() => loadAppTexts())

beforeEach(async () => {
  consoleErrors = []
  allowed.length = 0
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    const text = args.map(String).join(' ')
    if (!allowed.some((pattern) => pattern.test(text))) consoleErrors.push(args)
  })
  window.localStorage.clear()
  settingsStore.save({ ...DEFAULT_SETTINGS })
  window.localStorage.clear()
  // A fresh tab: signed out here, with no ended session to explain.
  await session.signOut()
  await setLanguage('en')
})

afterEach(async () => {
  // Toasts live in a module of their own; none may leak into the next test.
  if (toasterWanted.get()) (await import('sonner')).toast.dismiss()
  cleanup()
  queryClient.clear()
  window.localStorage.clear()
  session.syncFromStorage()
  vi.useRealTimers()
  vi.restoreAllMocks()
  vi.unstubAllGlobals()
  if (consoleErrors.length > 0) {
    const messages = consoleErrors.map((args) => args.map(String).join(' ')).join('\n')
    consoleErrors = []
    throw new Error(`Unexpected console.error:\n${messages}`)
  }
})

// A toast that closed in a file's last moments removes itself 200 ms later (sonner's exit
// animation); that update must land while the page still exists, not after the file's jsdom is
// gone, where React finds no `window` and the run fails with an uncaught error.
const SONNER_EXIT_MS = 200
afterAll(async () => {
  if (toasterWanted.get()) await new Promise((resolve) => setTimeout(resolve, SONNER_EXIT_MS + 100))
})
