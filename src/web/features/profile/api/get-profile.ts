import { queryOptions, useQuery } from '@tanstack/react-query'
import type { User } from '~shared/schemas/user'
import { api } from '~web/lib/api-client'
import { session } from '~web/lib/session'

/** GET /users/profile: the signed-in user, also kept as the session's user. */
export async function getProfile(signal?: AbortSignal): Promise<User> {
  const { data } = await api.get<User>('/users/profile', { signal })
  if (JSON.stringify(data) !== JSON.stringify(session.get().user)) session.updateUser(data)
  return data
}

export const profileQueryOptions = () => queryOptions({ queryKey: ['profile'], queryFn: ({ signal }) => getProfile(signal) })

export function useProfile(initial: User | null) {
  return useQuery({ ...profileQueryOptions(), ...(initial ? { initialData: initial, initialDataUpdatedAt: 0 } : {}) })
}
