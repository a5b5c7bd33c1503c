import type { AcceptInvitationInput } from '~shared/schemas/auth'
import type { AuthResult } from '~shared/schemas/user'
import { api } from '~web/lib/api-client'
import { session } from '~web/lib/session'

/** POST /auth/accept-invite/{token}: the password is set, and the session is this user's. */
export async function acceptInvitation(token: string, input: AcceptInvitationInput): Promise<AuthResult> {
  const { data } = await api.post<AuthResult>(`/auth/accept-invite/${encodeURIComponent(token)}`, input)
  session.signIn(data)
  return data
}
