import { useQuery } from '@tanstack/react-query'
import { z } from 'zod'
import { apiKeyListSchema } from '~shared/schemas/api-keys'
import { api } from '~web/lib/api-client'

/**
 * What a directory is given to provision people (contract section 13): the SCIM base URL, as the
 * service itself says it in its ServiceProviderConfig (APP_URL/scim/v2: APP_URL can differ from the
 * address the admin's browser opened, as for the issuer), and when the application last used it,
 * by its API keys (to the minute: decision 0501).
 */

export const SCIM_CONFIG_PATH = '/scim/v2/ServiceProviderConfig'

const configSchema = z.object({ meta: z.object({ location: z.string() }) })

export async function getScimBaseUrl(signal?: AbortSignal): Promise<string> {
  const response = await fetch(SCIM_CONFIG_PATH, { signal, headers: { Accept: 'application/scim+json' } })
  if (!response.ok) throw new Error(`The SCIM service answered ${response.status}`)
  return configSchema.parse(await response.json()).meta.location.replace(/\/ServiceProviderConfig$/, '')
}

export async function getScimLastUse(applicationId: string, signal?: AbortSignal): Promise<string | null> {
  const { data } = await api.get<unknown>(`/admin/applications/${encodeURIComponent(applicationId)}/keys`, { signal })
  const uses = apiKeyListSchema
    .parse(data)
    .keys.map((key) => key.lastUsedAt)
    .filter((at): at is string => at !== null)
  return uses.length === 0 ? null : uses.reduce((latest, at) => (at > latest ? at : latest))
}

export function useScimConnection(applicationId: string) {
  const baseUrl = useQuery({ queryKey: ['scim', 'base-url'], queryFn: ({ signal }) => getScimBaseUrl(signal), staleTime: Infinity })
  // Under the application's key: every change to it (its keys included) refreshes this too.
  const lastUse = useQuery({ queryKey: ['applications', applicationId, 'scim-last-use'], queryFn: ({ signal }) => getScimLastUse(applicationId, signal) })
  return { baseUrl, lastUse }
}
