/**
 * Passkeys in this browser. The WebAuthn helpers (`@simplewebauthn/browser`) are loaded only when
 * a passkey is about to be used, so the sign-in page's first load does not carry them (its size
 * budget: tests/e2e/bundle-budget.test.ts). A browser without WebAuthn is shown no passkey
 * control at all.
 */

/** Whether this browser has WebAuthn (PublicKeyCredential and the credentials container). */
export function browserHasWebAuthn(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function' && typeof navigator.credentials?.get === 'function'
}

export const loadWebAuthn = () => import('@simplewebauthn/browser')

/** Whether the browser can offer passkeys in a field's autofill (conditional mediation). */
export async function browserHasPasskeyAutofill(): Promise<boolean> {
  if (!browserHasWebAuthn()) return false
  const check = window.PublicKeyCredential.isConditionalMediationAvailable
  return typeof check === 'function' ? check.call(window.PublicKeyCredential).catch(() => false) : false
}

export type PasskeyProblem = 'cancelled' | 'alreadyRegistered' | 'failed'

/**
 * What went wrong in the browser's part of a passkey ceremony: the person cancelled it or let it
 * time out (the browser cannot tell these apart, and will not say whether a passkey existed), the
 * authenticator already holds a passkey for this account, or anything else.
 */
export function passkeyProblemOf(error: unknown): PasskeyProblem {
  const code = (error as { code?: unknown } | null)?.code
  const name = (error as { name?: unknown } | null)?.name
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED' || name === 'InvalidStateError') return 'alreadyRegistered'
  if (code === 'ERROR_CEREMONY_ABORTED' || name === 'NotAllowedError' || name === 'AbortError') return 'cancelled'
  return 'failed'
}
