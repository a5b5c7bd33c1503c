import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { AdminUpdateUserInput } from '~shared/schemas/admin'
import type { User } from '~shared/schemas/user'
import { api } from '~web/lib/api-client'

/** PUT /admin/users/{id} with only the changed fields (role and status changes too). */
export async function updateUser(id: string, changes: AdminUpdateUserInput): Promise<User> {
  const { data } = await api.put<User>(`/admin/users/${encodeURIComponent(id)}`, changes)
  return data
}

export function useUpdateUser() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, changes }: { id: string; changes: AdminUpdateUserInput }) => updateUser(id, changes),
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: ['users'] }), queryClient.invalidateQueries({ queryKey: ['admin-stats'] })]),
  })
}
