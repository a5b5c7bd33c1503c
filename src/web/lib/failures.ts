import { serverMessageOf, deservesToast } from './error-catalogue'
import { translateMessage } from './i18n'
import { notify } from './toast'

/** The text to show for a failure: the server's message (translated when known), else the fallback. */
export function failureText(error: unknown, fallback: string): string {
  const message = serverMessageOf(error)
  return message ? translateMessage(message) : fallback
}

/** An error toast for a failure, unless the catalogue says the page tells it itself. */
export function toastFailure(error: unknown, fallback: string): void {
  if (deservesToast(error)) notify.error(failureText(error, fallback))
}
