import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { UpdateProfileInput } from '~shared/schemas/profile'
import type { User } from '~shared/schemas/user'
import { api } from '~web/lib/api-client'
import { session } from '~web/lib/session'

/** PUT /users/profile with name and phone: answers the updated user. */
export async function updateProfile(input: UpdateProfileInput): Promise<User> {
  const { data } = await api.put<User>('/users/profile', input)
  return data
}

export function useUpdateProfile() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: updateProfile,
    onSuccess(user) {
      session.updateUser(user)
      queryClient.setQueryData(['profile'], user)
    },
  })
}
