import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser'
import { useMutation } from '@tanstack/react-query'
import type { DeleteAccountInput } from '~shared/schemas/own-data'
import { api, type DownloadedFile } from '~web/lib/api-client'
import { loadWebAuthn } from '~web/lib/webauthn'

/** A person's own data: the file of everything kept about them, and deleting the account. */

/** GET /auth/export: one JSON document, named by the server for the day. */
export const downloadMyData = (): Promise<DownloadedFile> => api.download('/auth/export')

/** Raised when the browser's part of a passkey confirmation did not complete (cancelled, no passkey, timed out). */
export class PasskeyConfirmationError extends Error {
  constructor(override readonly cause: unknown) {
    super('The passkey was not used')
    this.name = 'PasskeyConfirmationError'
  }
}

/** Request options for the caller's own passkeys, then the browser's ceremony: the answer to send with the action. */
export async function confirmWithPasskey(): Promise<AuthenticationResponseJSON> {
  const [{ startAuthentication }, { data: optionsJSON }] = await Promise.all([
    loadWebAuthn(),
    api.post<PublicKeyCredentialRequestOptionsJSON>('/auth/passkeys/confirmation/options'),
  ])
  try {
    return await startAuthentication({ optionsJSON })
  } catch (error) {
    throw new PasskeyConfirmationError(error)
  }
}

/**
 * An account with a long history takes a while to delete (each activity entry is set free of it,
 * docs/decisions/0561): the call may last this long, where others give up after 10 seconds.
 */
const DELETE_TIMEOUT_MS = 2 * 60_000

/**
 * POST /auth/delete-account with the password (and code), or with a passkey's answer. The account
 * is gone once it answers (the caller then forgets the session: `session.forget()`).
 */
export async function deleteMyAccount(input: DeleteAccountInput | 'passkey'): Promise<void> {
  const body = input === 'passkey' ? { passkeyResponse: await confirmWithPasskey() } : input
  await api.post('/auth/delete-account', body, { timeoutMs: DELETE_TIMEOUT_MS })
}

export const useDeleteMyAccount = () => useMutation({ mutationFn: deleteMyAccount })
