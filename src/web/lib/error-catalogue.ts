import { isApiError } from './api-error'

/**
 * The spec's error catalogue (section 8): which failures are told by a toast, which are not
 * (inactive or suspended accounts, sign-in failures: the page shows those itself), and the
 * account state a message names.
 */

export type BlockedState = 'inactive' | 'suspended'

export function accountStateIn(message: string | null | undefined): BlockedState | null {
  const text = (message ?? '').toLowerCase()
  if (text.includes('suspended')) return 'suspended'
  if (text.includes('inactive')) return 'inactive'
  return null
}

const LOGIN_TYPE = ['invalid credentials', 'no account found', 'incorrect password', 'email not verified']

export function isLoginTypeMessage(message: string | null | undefined): boolean {
  const text = (message ?? '').toLowerCase()
  return LOGIN_TYPE.some((phrase) => text.includes(phrase))
}

/** Whether a failure gets an error toast: not for account-state and sign-in messages, an ended session or a cancelled call. */
export function deservesToast(error: unknown): boolean {
  if (error instanceof DOMException && error.name === 'AbortError') return false
  // An ended session sends the user to the sign-in page; that says enough.
  if (isApiError(error) && error.status === 401) return false
  const message = error instanceof Error ? error.message : ''
  return !accountStateIn(message) && !isLoginTypeMessage(message)
}

/** The message of a failure as the server wrote it, or null when there is none to show. */
export function serverMessageOf(error: unknown): string | null {
  if (isApiError(error) && error.message) return error.message
  return null
}
