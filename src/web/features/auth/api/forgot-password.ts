import { api } from '~web/lib/api-client'

/** POST /auth/forgot-password: the same answer whether or not the address has an account. */
export async function requestPasswordReset(email: string): Promise<void> {
  await api.post('/auth/forgot-password', { email })
}
