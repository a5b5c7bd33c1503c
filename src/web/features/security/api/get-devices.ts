import { queryOptions, useQuery } from '@tanstack/react-query'
import type { SignedInDevices } from '~shared/schemas/sessions'
import { api } from '~web/lib/api-client'

/** GET /auth/sessions: the signed-in user's live sessions, most recently used first. */
export async function getDevices(signal?: AbortSignal): Promise<SignedInDevices> {
  const { data } = await api.get<SignedInDevices>('/auth/sessions', { signal })
  return data
}

export const devicesQueryKey = ['signed-in-devices'] as const

export const devicesQueryOptions = () => queryOptions({ queryKey: devicesQueryKey, queryFn: ({ signal }) => getDevices(signal) })

export function useDevices() {
  return useQuery(devicesQueryOptions())
}
