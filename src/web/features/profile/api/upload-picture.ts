import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { User } from '~shared/schemas/user'
import { api } from '~web/lib/api-client'
import { session } from '~web/lib/session'

/** POST /users/profile-picture with the image as a data URL: answers the updated user. */
export async function uploadPicture(profilePicture: string): Promise<User> {
  const { data } = await api.post<User>('/users/profile-picture', { profilePicture })
  return data
}

export function useUploadPicture() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: uploadPicture,
    onSuccess(user) {
      session.updateUser(user)
      queryClient.setQueryData(['profile'], user)
    },
  })
}
