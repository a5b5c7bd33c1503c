import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { PasswordConfirmationInput, RecoveryCodes, TotpSetup, TwoFactorStatus } from '~shared/schemas/two-factor'
import { api } from '~web/lib/api-client'

/** The signed-in user's second factors: GET /auth/mfa and the calls that change them. */

export const twoFactorQueryOptions = () =>
  queryOptions({
    queryKey: ['two-factor'],
    queryFn: async ({ signal }) => (await api.get<TwoFactorStatus>('/auth/mfa', { signal })).data,
  })

export const useTwoFactorStatus = () => useQuery(twoFactorQueryOptions())

/** A change that ends with the status read again. */
function useTwoFactorChange<I, O>(call: (input: I) => Promise<O>) {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: call, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['two-factor'] }) })
}

export const useSetUpTotp = () => useTwoFactorChange(async (input: PasswordConfirmationInput) => (await api.post<TotpSetup>('/auth/mfa/totp/setup', input)).data)

export const useEnableTotp = () => useTwoFactorChange(async (input: { code: string }) => (await api.post<RecoveryCodes>('/auth/mfa/totp/enable', input)).data)

export const useDisableTwoFactor = () =>
  useTwoFactorChange(async (input: PasswordConfirmationInput) => {
    await api.post('/auth/mfa/totp/disable', input)
  })

export const useRegenerateRecoveryCodes = () =>
  useTwoFactorChange(async (input: PasswordConfirmationInput) => (await api.post<RecoveryCodes>('/auth/mfa/recovery-codes', input)).data)
