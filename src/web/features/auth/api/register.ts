import type { RegisterInput } from '~shared/schemas/auth'
import { api } from '~web/lib/api-client'

/** POST /auth/register: answers the registered address (a verification e-mail is on its way). */
export async function register(input: RegisterInput): Promise<{ email: string }> {
  const { data } = await api.post<{ email: string }>('/auth/register', input)
  return data
}
