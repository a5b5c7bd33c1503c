import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { type ActivityFilter, PAGE_SIZE_ACTIVITY } from '~shared/constants'
import type { ActivityList } from '~shared/schemas/lists'
import { api } from '~web/lib/api-client'

export interface ActivityLogsQuery {
  page: number
  search: string
  activity: ActivityFilter
}

/** GET /admin/activity-logs: every user's entries with their user, 20 a page. */
export async function getActivityLogs({ page, search, activity }: ActivityLogsQuery, signal?: AbortSignal): Promise<ActivityList> {
  const query = { page, limit: PAGE_SIZE_ACTIVITY, search: search || undefined, activity: activity === 'all' ? undefined : activity }
  const { data } = await api.get<ActivityList>('/admin/activity-logs', { query, signal })
  return data
}

export const activityLogsQueryOptions = (query: ActivityLogsQuery) =>
  queryOptions({
    queryKey: ['activity-logs', query],
    queryFn: ({ signal }) => getActivityLogs(query, signal),
    placeholderData: keepPreviousData,
  })

export function useActivityLogs(query: ActivityLogsQuery) {
  return useQuery(activityLogsQueryOptions(query))
}
