import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { CreateIdentityProviderInput, IdentityProvider, UpdateIdentityProviderInput } from '~shared/schemas/identity-providers'
import { api } from '~web/lib/api-client'

/** The admin's calls on identity providers (contract section 10): one list, refreshed after every change. */

/** An `oidc` issuer's discovery may take the server up to 10 seconds: the save waits longer than other calls. */
const SAVE_TIMEOUT_MS = 30_000

const providerPath = (id: string) => `/admin/identity-providers/${encodeURIComponent(id)}`

export async function getIdentityProviders(signal?: AbortSignal): Promise<IdentityProvider[]> {
  const { data } = await api.get<{ identityProviders: IdentityProvider[] }>('/admin/identity-providers', { signal })
  return data.identityProviders
}

export function useIdentityProviders() {
  return useQuery({ queryKey: ['identity-providers'], queryFn: ({ signal }) => getIdentityProviders(signal) })
}

/** POST /admin/identity-providers: an `oidc` issuer's discovery is read before it answers. */
export async function createIdentityProvider(input: CreateIdentityProviderInput): Promise<IdentityProvider> {
  const { data } = await api.post<{ identityProvider: IdentityProvider }>('/admin/identity-providers', input, { timeoutMs: SAVE_TIMEOUT_MS })
  return data.identityProvider
}

export async function updateIdentityProvider(id: string, changes: UpdateIdentityProviderInput): Promise<IdentityProvider> {
  const { data } = await api.put<{ identityProvider: IdentityProvider }>(providerPath(id), changes, { timeoutMs: SAVE_TIMEOUT_MS })
  return data.identityProvider
}

/** Deleting a provider removes the identities linked through it; the accounts stay. */
export async function deleteIdentityProvider(id: string): Promise<void> {
  await api.delete(providerPath(id))
}

function useRefreshing<A, R>(mutationFn: (args: A) => Promise<R>) {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['identity-providers'] }) })
}

export const useCreateIdentityProvider = () => useRefreshing(createIdentityProvider)
export const useUpdateIdentityProvider = () =>
  useRefreshing(({ id, changes }: { id: string; changes: UpdateIdentityProviderInput }) => updateIdentityProvider(id, changes))
export const useDeleteIdentityProvider = () => useRefreshing(deleteIdentityProvider)
