import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { PAGE_SIZE_USERS, type Role, type Status } from '~shared/constants'
import type { UserList } from '~shared/schemas/lists'
import { api } from '~web/lib/api-client'

export interface UsersQuery {
  page: number
  search: string
  role: Role | 'all'
  status: Status | 'all'
}

/** GET /admin/users: 10 a page, filtered by name or e-mail, role and status. */
export async function getUsers({ page, search, role, status }: UsersQuery, signal?: AbortSignal): Promise<UserList> {
  const query = {
    page,
    limit: PAGE_SIZE_USERS,
    search: search || undefined,
    role: role === 'all' ? undefined : role,
    status: status === 'all' ? undefined : status,
  }
  const { data } = await api.get<UserList>('/admin/users', { query, signal })
  return data
}

export const usersQueryOptions = (query: UsersQuery) =>
  queryOptions({ queryKey: ['users', query], queryFn: ({ signal }) => getUsers(query, signal), placeholderData: keepPreviousData })

export function useUsers(query: UsersQuery) {
  return useQuery(usersQueryOptions(query))
}
