import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { recordPasskeyUse } from '~server/data/passkeys/passkeys'
import type { UserRecord } from '~server/data/users/users'
import { checkPasskeyConfirmation, passkeyRejected } from '~server/use-cases/passkeys/passkey-confirmation'
import { confirmPassword } from '~server/use-cases/passwords/confirm-password'
import { providerNotFound } from './provider-rules'
import { type StartedSignIn, startProviderSignIn } from './start-provider-sign-in'

/**
 * Linking a provider from Profile → Security: the password, or a passkey's answer to the owner's
 * confirmation challenge (decisions 0562, 0508), proves the person is at the keyboard; then a
 * transaction bound to this browser and to this account starts; the provider's answer links the
 * identity to it at the handoff (never one linked to another account).
 */
export async function startLink(
  ctx: AppContext,
  input: { user: UserRecord; providerId: string; password?: string | undefined; passkeyResponse?: AuthenticationResponseJSON | undefined; ip: string },
): Promise<StartedSignIn> {
  if (input.passkeyResponse) await confirmWithPasskey(ctx, { user: input.user, response: input.passkeyResponse, ip: input.ip })
  else await confirmPassword(ctx, { user: input.user, password: input.password ?? '', ip: input.ip })
  const started = await startProviderSignIn(ctx, { providerId: input.providerId, returnTo: '/profile', linkUserId: input.user.id })
  if (!started) throw providerNotFound()
  return started
}

/** The passkey's answer, checked and its use recorded (the challenge is used up either way); a failure is recorded and refused. */
async function confirmWithPasskey(ctx: AppContext, input: { user: UserRecord; response: AuthenticationResponseJSON; ip: string }): Promise<void> {
  const { user, ip } = input
  const proof = await checkPasskeyConfirmation(ctx, { userId: user.id, response: input.response })
  const used = proof !== null && (await commitChange(ctx, (c) => recordPasskeyUse(c.trx, { ...proof, now: c.now })))
  if (!used) {
    await commitChange(ctx, (c) => c.record({ userId: user.id, kind: 'other', activity: 'Failed passkey confirmation', details: 'Passkey check failed', ip }))
    throw passkeyRejected()
  }
}
