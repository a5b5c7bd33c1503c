import { api } from '~web/lib/api-client'

/** POST /auth/resend-verification: the same answer for any address. */
export async function resendVerification(email: string): Promise<void> {
  await api.post('/auth/resend-verification', { email })
}
