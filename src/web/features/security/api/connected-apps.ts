import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { ConnectedApp, ConnectedAppList } from '~shared/schemas/connected-apps'
import { api } from '~web/lib/api-client'

/** Connected apps of the Security tab: the applications the person allowed, and taking one's access back. */

const CONNECTED_APPS_KEY = ['connected-apps'] as const

/** GET /auth/applications: most recently allowed first. */
export async function getConnectedApps(signal?: AbortSignal): Promise<ConnectedApp[]> {
  const { data } = await api.get<ConnectedAppList>('/auth/applications', { signal })
  return data.applications
}

export const connectedAppsQueryOptions = () => queryOptions({ queryKey: CONNECTED_APPS_KEY, queryFn: ({ signal }) => getConnectedApps(signal) })

export const useConnectedApps = () => useQuery(connectedAppsQueryOptions())

/** DELETE /auth/applications/{id}: the app's grant and tokens die; it asks again next time. */
export async function removeAppAccess(id: string): Promise<void> {
  await api.delete(`/auth/applications/${encodeURIComponent(id)}`)
}

export function useRemoveAppAccess() {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: removeAppAccess, onSettled: () => queryClient.invalidateQueries({ queryKey: CONNECTED_APPS_KEY }) })
}
