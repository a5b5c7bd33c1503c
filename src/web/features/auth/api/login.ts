import type { LoginInput } from '~shared/schemas/auth'
import type { LoginResult, MfaRequired, SecondStepInput } from '~shared/schemas/two-factor'
import type { AuthResult } from '~shared/schemas/user'
import { api } from '~web/lib/api-client'
import { session } from '~web/lib/session'

/** POST /auth/login, then the session is this user's; or, with two-factor on, the second step to take. */
export async function login(input: LoginInput): Promise<AuthResult | MfaRequired> {
  const { data } = await api.post<LoginResult>('/auth/login', input)
  if ('mfaRequired' in data) return data
  session.signIn(data)
  return data
}

/** POST /auth/login/mfa: the second step with a code or a recovery code, then the session is this user's. */
export async function completeSignIn(input: SecondStepInput): Promise<AuthResult> {
  const { data } = await api.post<AuthResult>('/auth/login/mfa', input)
  session.signIn(data)
  return data
}
