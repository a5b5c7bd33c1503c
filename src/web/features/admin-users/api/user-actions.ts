import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { InviteUserInput } from '~shared/schemas/admin'
import type { User } from '~shared/schemas/user'
import { api } from '~web/lib/api-client'
import type { UserSecurityAction } from '../security-actions'

/** POST /admin/users: the person gets an invitation e-mail; the answer is the new (unverified) user. */
export async function inviteUser(input: InviteUserInput): Promise<User> {
  const { data } = await api.post<User>('/admin/users', input)
  return data
}

const userPath = (id: string) => `/admin/users/${encodeURIComponent(id)}`

/** The call behind each of the admin's actions on a user's security. */
const SECURITY_CALLS: Record<UserSecurityAction, (id: string) => Promise<unknown>> = {
  'resend-invitation': (id) => api.post(`${userPath(id)}/invitation`),
  'password-reset': (id) => api.post(`${userPath(id)}/password-reset`),
  'sign-out': (id) => api.delete(`${userPath(id)}/sessions`),
  'reset-mfa': (id) => api.delete(`${userPath(id)}/mfa`),
}

export function runSecurityAction(action: UserSecurityAction, id: string): Promise<unknown> {
  return SECURITY_CALLS[action](id)
}

const refreshLists = (queryClient: ReturnType<typeof useQueryClient>) =>
  Promise.all([queryClient.invalidateQueries({ queryKey: ['users'] }), queryClient.invalidateQueries({ queryKey: ['admin-stats'] })])

export function useInviteUser() {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: inviteUser, onSuccess: () => refreshLists(queryClient) })
}

export function useSecurityAction() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ action, id }: { action: UserSecurityAction; id: string }) => runSecurityAction(action, id),
    onSuccess: () => refreshLists(queryClient),
  })
}
