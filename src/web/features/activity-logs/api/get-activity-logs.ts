import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { type ActivityFilter, PAGE_SIZE_ACTIVITY } from '~shared/constants'
import type { ActivityList } from '~shared/schemas/lists'
import { api, type DownloadedFile } from '~web/lib/api-client'

export interface ActivityLogsFilters {
  search: string
  activity: ActivityFilter
  /** A date (YYYY-MM-DD), both ends inclusive; empty: no bound. */
  from: string
  to: string
}

export interface ActivityLogsQuery extends ActivityLogsFilters {
  page: number
}

function filterQuery({ search, activity, from, to }: ActivityLogsFilters) {
  return { search: search || undefined, activity: activity === 'all' ? undefined : activity, from: from || undefined, to: to || undefined }
}

/** GET /admin/activity-logs: every user's entries with their user, 20 a page. */
export async function getActivityLogs(query: ActivityLogsQuery, signal?: AbortSignal): Promise<ActivityList> {
  const { data } = await api.get<ActivityList>('/admin/activity-logs', { query: { page: query.page, limit: PAGE_SIZE_ACTIVITY, ...filterQuery(query) }, signal })
  return data
}

/** GET /admin/activity-logs/export: the same entries, all of them, as CSV. */
export function exportActivityLogs(filters: ActivityLogsFilters): Promise<DownloadedFile> {
  return api.download('/admin/activity-logs/export', { query: filterQuery(filters) })
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
