import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '~web/lib/api-client'

/** DELETE /admin/users/{id}: only an INACTIVE user who is not an admin and not oneself. */
export async function deleteUser(id: string): Promise<void> {
  await api.delete(`/admin/users/${encodeURIComponent(id)}`)
}

export function useDeleteUser() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteUser,
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: ['users'] }), queryClient.invalidateQueries({ queryKey: ['admin-stats'] })]),
  })
}
