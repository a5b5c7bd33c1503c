import { queryOptions, useQuery } from '@tanstack/react-query'
import type { AdminStats } from '~shared/schemas/lists'
import { api } from '~web/lib/api-client'

/** GET /admin/stats: counts by status and role, and the most recent activity. */
export async function getAdminStats(signal?: AbortSignal): Promise<AdminStats> {
  const { data } = await api.get<AdminStats>('/admin/stats', { signal })
  return data
}

export const adminStatsQueryOptions = () => queryOptions({ queryKey: ['admin-stats'], queryFn: ({ signal }) => getAdminStats(signal) })

export function useAdminStats() {
  return useQuery(adminStatsQueryOptions())
}
