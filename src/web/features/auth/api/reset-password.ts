import type { ResetPasswordInput } from '~shared/schemas/auth'
import { api } from '~web/lib/api-client'

/** POST /auth/reset-password/{token}. */
export async function resetPassword(token: string, input: ResetPasswordInput): Promise<void> {
  await api.post(`/auth/reset-password/${encodeURIComponent(token)}`, input)
}
