import { useMutation } from '@tanstack/react-query'
import type { ChangePasswordInput } from '~shared/schemas/profile'
import { api } from '~web/lib/api-client'

/** PUT /users/change-password: ends the user's other sessions, keeps this one. */
export async function changePassword(input: ChangePasswordInput): Promise<void> {
  await api.put('/users/change-password', input)
}

export function useChangePassword() {
  return useMutation({ mutationFn: changePassword })
}
