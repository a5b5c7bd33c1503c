import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { PAGE_SIZE_USERS, type Role, type Status } from '~shared/constants'
import type { SortOrder, UserList, UserSort } from '~shared/schemas/lists'
import { api, type DownloadedFile } from '~web/lib/api-client'

/** The dormancy choices the page offers: no sign-in for this many days. */
export const INACTIVE_DAYS = ['30', '90', '365'] as const

export interface UsersFilters {
  search: string
  role: Role | 'all'
  status: Status | 'all'
  verified: 'all' | 'true' | 'false'
  mfa: 'all' | 'true' | 'false'
  inactive: 'all' | (typeof INACTIVE_DAYS)[number]
  sort: UserSort
  order: SortOrder
}

export interface UsersQuery extends UsersFilters {
  page: number
}

/** The filters and order as the API takes them (the list's and the export's alike). */
function filterQuery({ search, role, status, verified, mfa, inactive, sort, order }: UsersFilters) {
  return {
    search: search || undefined,
    role: role === 'all' ? undefined : role,
    status: status === 'all' ? undefined : status,
    verified: verified === 'all' ? undefined : verified,
    mfa: mfa === 'all' ? undefined : mfa,
    inactiveDays: inactive === 'all' ? undefined : inactive,
    // The server's default order (newest first) goes unsaid.
    sort: sort === 'createdAt' ? undefined : sort,
    order: order === 'desc' ? undefined : order,
  }
}

/** GET /admin/users: 10 a page, searched, filtered and sorted. */
export async function getUsers(query: UsersQuery, signal?: AbortSignal): Promise<UserList> {
  const { data } = await api.get<UserList>('/admin/users', { query: { page: query.page, limit: PAGE_SIZE_USERS, ...filterQuery(query) }, signal })
  return data
}

/** GET /admin/users/export: the same users, all of them, as CSV. */
export function exportUsers(filters: UsersFilters): Promise<DownloadedFile> {
  return api.download('/admin/users/export', { query: filterQuery(filters) })
}

export const usersQueryOptions = (query: UsersQuery) =>
  queryOptions({ queryKey: ['users', query], queryFn: ({ signal }) => getUsers(query, signal), placeholderData: keepPreviousData })

export function useUsers(query: UsersQuery) {
  return useQuery(usersQueryOptions(query))
}
