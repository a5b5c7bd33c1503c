import { type ErrorCode, isErrorCode } from '~shared/error-codes'
import { translateMessage } from './i18n'
import { notify } from './toast'

/**
 * Failed calls, in one place: the error the API client throws, and what the app does with it,
 * decided by the envelope's `code` (`~shared/error-codes`). Text is read only where the product's
 * error catalogue itself goes by the words of a message: which failures get no toast.
 */

export interface FieldError {
  field: string
  message: string
}

export const NETWORK_ERROR_MESSAGE = 'Network error: the server could not be reached'
export const TIMEOUT_MESSAGE = 'Network error: the request timed out'

/** The API's codes, and the browser's own for a call that got no usable answer. */
export type FailureCode = ErrorCode | 'NETWORK_ERROR' | 'TIMEOUT' | 'UNKNOWN'

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: FailureCode = 'UNKNOWN',
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message)
    this.name = 'ApiError'
  }

  /** No answer at all: offline, refused, timed out. */
  get isNetwork(): boolean {
    return this.status === 0
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError
}

/** A code as the server sent it: one of the API's, or UNKNOWN (an answer not from the API, say a proxy's). */
export const failureCodeOf = (value: unknown): FailureCode => (isErrorCode(value) ? value : 'UNKNOWN')

export const codeOf = (error: unknown): FailureCode | null => (isApiError(error) ? error.code : null)

export type BlockedState = 'inactive' | 'suspended'

/** The account state a refusal names: the sign-in page and the guard send its owner to /account-status. */
export function blockedStateOf(error: unknown): BlockedState | null {
  const code = codeOf(error)
  if (code === 'ACCOUNT_SUSPENDED') return 'suspended'
  if (code === 'ACCOUNT_INACTIVE') return 'inactive'
  return null
}

/** The sign-in failures the sign-in page tells itself. */
const SIGN_IN_CODES: ReadonlySet<FailureCode> = new Set(['INVALID_CREDENTIALS', 'EMAIL_NOT_VERIFIED', 'ACCOUNT_SUSPENDED', 'ACCOUNT_INACTIVE'])

/**
 * The error catalogue's words for the failures that get no toast (messages mentioning an inactive
 * or suspended account, and sign-in messages), for answers that carry no code of ours.
 */
const NO_TOAST_WORDS = ['inactive', 'suspended', 'invalid credentials', 'no account found', 'incorrect password', 'email not verified']

/** Whether a failure gets an error toast: not for account-state and sign-in failures, an ended session or a cancelled call. */
export function deservesToast(error: unknown): boolean {
  if (error instanceof DOMException && error.name === 'AbortError') return false
  // An ended session sends the user to the sign-in page; that says enough.
  if (isApiError(error) && (error.status === 401 || SIGN_IN_CODES.has(error.code))) return false
  const text = (error instanceof Error ? error.message : '').toLowerCase()
  return !NO_TOAST_WORDS.some((words) => text.includes(words))
}

/** The text to show for a failure: the server's message (translated when known), else the fallback. */
export function failureText(error: unknown, fallback: string): string {
  return isApiError(error) && error.message ? translateMessage(error.message) : fallback
}

/** An error toast for a failure, unless the page tells it itself. */
export function toastFailure(error: unknown, fallback: string): void {
  if (deservesToast(error)) notify.error(failureText(error, fallback))
}
