import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/browser'
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { Passkey } from '~shared/schemas/passkeys'
import { api } from '~web/lib/api-client'
import { loadWebAuthn } from '~web/lib/webauthn'

/** The passkey calls of the Security tab: list, add (with the browser's ceremony), rename, remove. */

const PASSKEYS_KEY = ['passkeys'] as const

/** GET /auth/passkeys: the signed-in user's passkeys, oldest first. */
export async function getPasskeys(signal?: AbortSignal): Promise<Passkey[]> {
  const { data } = await api.get<{ passkeys: Passkey[] }>('/auth/passkeys', { signal })
  return data.passkeys
}

export const passkeysQueryOptions = () => queryOptions({ queryKey: PASSKEYS_KEY, queryFn: ({ signal }) => getPasskeys(signal) })

export const usePasskeys = () => useQuery(passkeysQueryOptions())

/** Raised when the browser's part of adding a passkey did not complete (cancelled, already there…). */
export class PasskeyCreationError extends Error {
  constructor(override readonly cause: unknown) {
    super('The passkey was not created')
    this.name = 'PasskeyCreationError'
  }
}

/** Creation options, the browser's ceremony, then POST /auth/passkeys/registration. */
export async function addPasskey(): Promise<Passkey> {
  const [{ startRegistration }, { data: optionsJSON }] = await Promise.all([
    loadWebAuthn(),
    api.post<PublicKeyCredentialCreationOptionsJSON>('/auth/passkeys/registration/options'),
  ])
  let response: RegistrationResponseJSON
  try {
    response = await startRegistration({ optionsJSON })
  } catch (error) {
    throw new PasskeyCreationError(error)
  }
  const { data } = await api.post<{ passkey: Passkey }>('/auth/passkeys/registration', { response })
  return data.passkey
}

/** PATCH /auth/passkeys/{id} with its new name. */
export async function renamePasskey(input: { id: string; name: string }): Promise<Passkey> {
  const { data } = await api.request<{ passkey: Passkey }>(`/auth/passkeys/${encodeURIComponent(input.id)}`, { method: 'PATCH', body: { name: input.name } })
  return data.passkey
}

/** DELETE /auth/passkeys/{id}. */
export async function removePasskey(id: string): Promise<void> {
  await api.delete(`/auth/passkeys/${encodeURIComponent(id)}`)
}

function usePasskeyMutation<I, O>(mutationFn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn, onSettled: () => queryClient.invalidateQueries({ queryKey: PASSKEYS_KEY }) })
}

export const useAddPasskey = () => usePasskeyMutation(addPasskey)
export const useRenamePasskey = () => usePasskeyMutation(renamePasskey)
export const useRemovePasskey = () => usePasskeyMutation(removePasskey)
