import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '~web/lib/api-client'
import { devicesQueryKey } from './get-devices'

/** DELETE /auth/sessions/{id}: that device's session ends at once. */
export async function signOutDevice(id: string): Promise<void> {
  await api.delete(`/auth/sessions/${encodeURIComponent(id)}`)
}

/** DELETE /auth/sessions: every session but this one ends. */
export async function signOutOtherDevices(): Promise<void> {
  await api.delete('/auth/sessions')
}

export function useSignOutDevice() {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: signOutDevice, onSettled: () => queryClient.invalidateQueries({ queryKey: devicesQueryKey }) })
}

export function useSignOutOtherDevices() {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: signOutOtherDevices, onSettled: () => queryClient.invalidateQueries({ queryKey: devicesQueryKey }) })
}
