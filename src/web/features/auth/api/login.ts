import type { LoginInput } from '~shared/schemas/auth'
import type { AuthResult } from '~shared/schemas/user'
import { api } from '~web/lib/api-client'
import { session } from '~web/lib/session'

/** POST /auth/login, then the session is this user's. */
export async function login(input: LoginInput): Promise<AuthResult> {
  const { data } = await api.post<AuthResult>('/auth/login', input)
  session.signIn(data)
  return data
}
