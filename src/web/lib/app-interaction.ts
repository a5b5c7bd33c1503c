import { api } from './api-client'

/**
 * An app's sign-in in progress ("Sign in with Accounts"): the browser came from an app, through
 * the protocol's authorization request, with the interaction's uid. The sign-in page, the consent
 * page and the account-status page share it: its uid and the app's name are kept for this tab
 * (sessionStorage), so that a page the sign-in leads to can still send the person back to the app.
 * The interaction itself is bound to this browser by a path-scoped cookie the server set, which
 * every call here carries (same origin).
 */

export interface AppInteraction {
  uid: string
  app: string
}

const KEY = 'accounts.appInteraction'

export function rememberInteraction(interaction: AppInteraction): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(interaction))
  } catch {
    // Storage refused (private mode): the pages reached by URL still work.
  }
}

export function recallInteraction(): AppInteraction | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<AppInteraction> | null
    return value && typeof value.uid === 'string' && typeof value.app === 'string' ? { uid: value.uid, app: value.app } : null
  } catch {
    return null
  }
}

export function forgetInteraction(): void {
  try {
    sessionStorage.removeItem(KEY)
  } catch {
    // Nothing kept.
  }
}

export const interactionPath = (uid: string, action: 'details' | 'login' | 'consent' | 'abort') => `/oidc/interactions/${encodeURIComponent(uid)}/${action}`

/** Leaving the web app for another address (a full page load); one object, so tests can watch it. */
export const browserNavigation = {
  assign: (url: string): void => window.location.assign(url),
}

/** Leaves for the address the server named (back to the app): the interaction is over. */
export function followToApp(redirectTo: string): void {
  forgetInteraction()
  browserNavigation.assign(redirectTo)
}

/** POST …/abort: the app hears `access_denied`; the browser goes back to it. */
export async function returnToApp(uid: string): Promise<void> {
  const { data } = await api.post<{ redirectTo: string }>(interactionPath(uid, 'abort'), {}, { retryOnUnauthorized: false })
  followToApp(data.redirectTo)
}
