import { PasskeyConfirmationError } from './api/own-data'

/** Why adding a passkey failed in the browser (the Security tab's messages). */

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

/**
 * What to say when confirming an action with a passkey failed in the browser (the person cancelled,
 * or no passkey could answer): null for any other failure, which the caller handles.
 */
export function passkeyConfirmationProblem(error: unknown): 'ownData.passkeyCancelled' | 'ownData.passkeyFailed' | null {
  if (!(error instanceof PasskeyConfirmationError)) return null
  return passkeyProblemOf(error.cause) === 'cancelled' ? 'ownData.passkeyCancelled' : 'ownData.passkeyFailed'
}
