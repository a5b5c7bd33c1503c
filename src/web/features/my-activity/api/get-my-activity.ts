import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { type ActivityFilter, PAGE_SIZE_ACTIVITY } from '~shared/constants'
import type { ActivityList } from '~shared/schemas/lists'
import { api } from '~web/lib/api-client'

export interface MyActivityQuery {
  page: number
  search: string
  activity: ActivityFilter
}

/** GET /activity: the signed-in user's own entries, 20 a page; empty search and `all` are left out. */
export async function getMyActivity({ page, search, activity }: MyActivityQuery, signal?: AbortSignal): Promise<ActivityList> {
  const query = { page, limit: PAGE_SIZE_ACTIVITY, search: search || undefined, activity: activity === 'all' ? undefined : activity }
  const { data } = await api.get<ActivityList>('/activity', { query, signal })
  return data
}

export const myActivityQueryOptions = (query: MyActivityQuery) =>
  queryOptions({
    queryKey: ['my-activity', query],
    queryFn: ({ signal }) => getMyActivity(query, signal),
    placeholderData: keepPreviousData,
  })

export function useMyActivity(query: MyActivityQuery) {
  return useQuery(myActivityQueryOptions(query))
}
