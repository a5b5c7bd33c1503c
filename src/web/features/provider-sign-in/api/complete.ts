import type { LinkedIdentity, ProviderSignInResult } from '~shared/schemas/federation'
import { api } from '~web/lib/api-client'
import { session } from '~web/lib/session'

/**
 * POST /auth/federation/complete: the handoff code of `/login/complete#handoff=…`, redeemed once
 * with this browser's transaction cookie (decision 0511). Signed in, the session is this user's;
 * otherwise the second step, the proof an existing account asks for, or a link made.
 */
export async function completeProviderSignIn(handoff: string): Promise<ProviderSignInResult> {
  const { data } = await api.post<ProviderSignInResult>('/auth/federation/complete', { handoff }, { retryOnUnauthorized: false })
  if ('accessToken' in data) session.signIn(data)
  return data
}

/** POST /auth/federation/link: the signed-in owner of the matching account links the identity (decision 0512). */
export async function linkPendingIdentity(linkToken: string): Promise<LinkedIdentity> {
  const { data } = await api.post<{ identity: LinkedIdentity }>('/auth/federation/link', { linkToken }, { retryOnUnauthorized: false })
  return data.identity
}
