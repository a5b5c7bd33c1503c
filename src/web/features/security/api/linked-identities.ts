import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { LinkedIdentity } from '~shared/schemas/federation'
import type { SignInProvider } from '~shared/schemas/identity-providers'
import { api } from '~web/lib/api-client'
import { confirmWithPasskey } from './own-data'

/** Linked sign-in methods (contract section 10): the list, unlinking, and starting a link. */

const IDENTITIES_KEY = ['linked-identities'] as const

export interface LinkedIdentities {
  identities: LinkedIdentity[]
  /** Whether the account has a password (one made by a provider or a directory has none). */
  hasPassword: boolean
}

/** GET /auth/identities: the person's identities, and whether the account has a password. */
export async function getLinkedIdentities(signal?: AbortSignal): Promise<LinkedIdentities> {
  const { data } = await api.get<LinkedIdentities>('/auth/identities', { signal })
  return data
}

export const linkedIdentitiesQueryOptions = () => queryOptions({ queryKey: IDENTITIES_KEY, queryFn: ({ signal }) => getLinkedIdentities(signal) })
export const useLinkedIdentities = () => useQuery(linkedIdentitiesQueryOptions())

/** GET /auth/identity-providers: the enabled providers people may sign in (and link) with. */
export async function getSignInProviders(signal?: AbortSignal): Promise<SignInProvider[]> {
  const { data } = await api.get<{ identityProviders: SignInProvider[] }>('/auth/identity-providers', { signal })
  return data.identityProviders
}

export const useSignInProviders = () => useQuery({ queryKey: ['sign-in-providers'], queryFn: ({ signal }) => getSignInProviders(signal) })

/** DELETE /auth/identities/:id: refused (409) when it is the account's last way in. */
export async function unlinkIdentity(id: string): Promise<void> {
  await api.delete(`/auth/identities/${encodeURIComponent(id)}`)
}

export function useUnlinkIdentity() {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: unlinkIdentity, onSuccess: () => queryClient.invalidateQueries({ queryKey: IDENTITIES_KEY }) })
}

/**
 * POST /auth/identities/:providerId/link with the password, or with a passkey's answer to the
 * owner's confirmation challenge (`'passkey'`: the browser's ceremony runs first): where to send
 * the browser to link that provider.
 */
export async function startLink({ providerId, proof }: { providerId: string; proof: { password: string } | 'passkey' }): Promise<string> {
  const body = proof === 'passkey' ? { passkeyResponse: await confirmWithPasskey() } : proof
  const { data } = await api.post<{ url: string }>(`/auth/identities/${encodeURIComponent(providerId)}/link`, body)
  return data.url
}

/** The address that starts a sign-in with a provider, coming back to `returnTo` (a path of this app). */
export function providerSignInUrl(providerId: string, returnTo: string): string {
  return `/api/auth/federation/${encodeURIComponent(providerId)}/start?${new URLSearchParams({ returnTo })}`
}
