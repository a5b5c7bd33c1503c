import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { ApiKey, CreateApiKeyInput, CreatedApiKey } from '~shared/schemas/api-keys'
import { api } from '~web/lib/api-client'

/** A service application's API keys (contract section 11): the list, a new key (its secret in that answer only), a deletion. */

const keysPath = (applicationId: string) => `/admin/applications/${encodeURIComponent(applicationId)}/keys`
const keysKey = (applicationId: string) => ['applications', applicationId, 'keys']

export async function getApiKeys(applicationId: string, signal?: AbortSignal): Promise<ApiKey[]> {
  const { data } = await api.get<{ keys: ApiKey[] }>(keysPath(applicationId), { signal })
  return data.keys
}

export function useApiKeys(applicationId: string) {
  return useQuery({ queryKey: keysKey(applicationId), queryFn: ({ signal }) => getApiKeys(applicationId, signal) })
}

export async function createApiKey(applicationId: string, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const { data } = await api.post<CreatedApiKey>(keysPath(applicationId), input)
  return data
}

export async function deleteApiKey(applicationId: string, keyId: string): Promise<void> {
  await api.delete(`${keysPath(applicationId)}/${encodeURIComponent(keyId)}`)
}

export function useCreateApiKey(applicationId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: CreateApiKeyInput) => createApiKey(applicationId, input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey(applicationId) }),
  })
}

export function useDeleteApiKey(applicationId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (keyId: string) => deleteApiKey(applicationId, keyId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey(applicationId) }),
  })
}
