import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser'
import type { AuthResult } from '~shared/schemas/user'
import { api } from '~web/lib/api-client'
import { session } from '~web/lib/session'
import { loadWebAuthn } from '~web/lib/webauthn'

/** A passkey sign-in that ended in the browser (cancelled, timed out, no passkey), not at the server. */
export class PasskeyCeremonyError extends Error {
  constructor(override readonly cause: unknown) {
    super('The passkey request did not complete')
    this.name = 'PasskeyCeremonyError'
  }
}

/**
 * Signs in with a passkey: request options (POST /auth/passkeys/authentication/options), the
 * browser's ceremony, then POST /auth/passkeys/authentication; the session is then this user's.
 * With `autofill`, the ceremony waits for the person to pick a passkey in the e-mail field's
 * autofill (conditional mediation); a later call cancels a waiting one.
 */
export async function signInWithPasskey(options: { autofill?: boolean } = {}): Promise<AuthResult> {
  const [{ startAuthentication }, { data: optionsJSON }] = await Promise.all([
    loadWebAuthn(),
    api.post<PublicKeyCredentialRequestOptionsJSON>('/auth/passkeys/authentication/options'),
  ])
  let response: AuthenticationResponseJSON
  try {
    response = await startAuthentication({ optionsJSON, useBrowserAutofill: options.autofill ?? false })
  } catch (error) {
    throw new PasskeyCeremonyError(error)
  }
  const { data } = await api.post<AuthResult>('/auth/passkeys/authentication', { response }, { retryOnUnauthorized: false })
  session.signIn(data)
  return data
}

/** Stops a waiting autofill ceremony (the sign-in page is left). */
export async function cancelPasskeyAutofill(): Promise<void> {
  const { WebAuthnAbortService } = await loadWebAuthn()
  WebAuthnAbortService.cancelCeremony()
}
