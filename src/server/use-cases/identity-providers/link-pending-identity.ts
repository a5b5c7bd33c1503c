import { federationMessages, type LinkedIdentity } from '~shared/schemas/federation'
import { hashToken } from '~server/auth/secure-token'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { claimHandoff } from '~server/data/identity-providers/federation-transactions'
import { findLinkedAccount, hasIdentityOf, insertIdentity, listIdentitiesOfUser } from '~server/data/identity-providers/federated-identities'
import { conflict } from '~server/http/errors'
import type { VerifiedIdentity } from '~server/federation/openid-connect'
import { federationFailed, type Pending } from './pending-identity'
import { toLinkedIdentity } from './linked-identities'

/**
 * The second half of "an account with that address exists" (decision 0512): the owner signed in
 * to that account with what it already uses (password and second step, or a passkey), and only
 * now, with the link token and the same browser's transaction cookie, is the identity linked, to
 * that account and no other. Nobody reaches an account by controlling an e-mail claim alone.
 */
export async function linkPendingIdentity(
  ctx: AppContext,
  input: { userId: string; linkToken: string; cookie: string | undefined; ip: string },
): Promise<LinkedIdentity> {
  if (!input.cookie) throw federationFailed()
  const claimed = await claimHandoff(ctx.db, { id: hashToken(input.cookie), handoffHash: hashToken(input.linkToken), now: ctx.clock() })
  const pending = claimed?.transaction.result as Pending | null | undefined
  if (!claimed || pending?.linkUserId !== input.userId) throw federationFailed()
  const { provider } = claimed
  if (!provider?.enabled) throw federationFailed()
  return linkIdentity(ctx, { userId: input.userId, provider, pending, ip: input.ip })
}

/**
 * Links the identity to the account, in one transaction with its entry: refused (409) when it is
 * linked to another account, or the account already holds another identity of this provider.
 */
export async function linkIdentity(
  ctx: AppContext,
  input: { userId: string; provider: { id: string; name: string }; pending: VerifiedIdentity; ip: string },
): Promise<LinkedIdentity> {
  const { provider, pending } = input
  const linkedElsewhere = () => conflict(federationMessages.linkedElsewhere(provider.name), 'IDENTITY_LINKED_ELSEWHERE')
  const identityId = await commitChange(ctx, async (c) => {
    const holder = await findLinkedAccount(c.trx, provider.id, pending.subject)
    if (holder) {
      if (holder.id !== input.userId) throw linkedElsewhere()
      return holder.identity_id
    }
    if (await hasIdentityOf(c.trx, input.userId, provider.id)) throw linkedElsewhere()
    const id = await insertIdentity(c.trx, { providerId: provider.id, userId: input.userId, subject: pending.subject, email: pending.email, now: c.now })
    await c.record({ userId: input.userId, kind: 'security', activity: `Linked ${provider.name}`, details: pending.email, ip: input.ip })
    await c.emitUser('user.security_changed', input.userId, { change: 'identity-linked' })
    return id
  })
  const identity = (await listIdentitiesOfUser(ctx.db, input.userId)).find((item) => item.id === identityId)!
  return toLinkedIdentity(identity)
}
