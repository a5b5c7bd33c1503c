import type { AppContext } from '~server/context'
import type { UserRecord } from '~server/data/users/users'
import { providerNotFound } from './provider-rules'
import { type StartedSignIn, startProviderSignIn } from './start-provider-sign-in'
import { confirmPassword } from '~server/use-cases/passwords/confirm-password'

/**
 * Linking a provider from Profile → Security: the password proves the person is at the keyboard,
 * then a transaction bound to this browser and to this account starts; the provider's answer
 * links the identity to it at the handoff (never one linked to another account).
 */
export async function startLink(ctx: AppContext, input: { user: UserRecord; providerId: string; password: string; ip: string }): Promise<StartedSignIn> {
  await confirmPassword(ctx, { user: input.user, password: input.password, ip: input.ip })
  const started = await startProviderSignIn(ctx, { providerId: input.providerId, returnTo: '/profile', linkUserId: input.user.id })
  if (!started) throw providerNotFound()
  return started
}
