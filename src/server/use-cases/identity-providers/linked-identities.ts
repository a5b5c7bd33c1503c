import { federationMessages, type LinkedIdentity } from '~shared/schemas/federation'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { type IdentityRecord, listIdentitiesOfUser } from '~server/data/identity-providers/federated-identities'
import { NO_PASSWORD } from '~server/auth/password'
import { conflict, notFound } from '~server/http/errors'

export function toLinkedIdentity(record: IdentityRecord): LinkedIdentity {
  return {
    id: record.id,
    providerId: record.providerId,
    providerName: record.providerName,
    kind: record.kind,
    email: record.email,
    linkedAt: record.linkedAt.toISOString(),
    lastUsedAt: record.lastUsedAt ? record.lastUsedAt.toISOString() : null,
  }
}

export async function listMyIdentities(ctx: AppContext, userId: string): Promise<LinkedIdentity[]> {
  return (await listIdentitiesOfUser(ctx.db, userId)).map(toLinkedIdentity)
}

/** Whether the account has a password of its own (one made by a provider or a directory has none until "Forgot password"). */
export async function accountHasPassword(ctx: AppContext, userId: string): Promise<boolean> {
  const row = await ctx.db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst()
  return !!row && row.password_hash !== NO_PASSWORD
}

/**
 * Unlinks one of the caller's identities, unless it is the account's last way in: no password, no
 * passkey, no other identity (decision 0512). Checked and deleted in one transaction, the account
 * row locked, so two unlinks at once cannot remove both of the last two.
 */
export async function unlinkIdentity(ctx: AppContext, input: { userId: string; identityId: string; ip: string }): Promise<void> {
  await commitChange(ctx, async (c) => {
    const user = await c.trx.selectFrom('users').select(['id', 'password_hash']).where('id', '=', input.userId).forUpdate().executeTakeFirst()
    const identities = await listIdentitiesOfUser(c.trx, input.userId)
    const identity = identities.find((item) => item.id === input.identityId)
    if (!user || !identity) throw notFound(federationMessages.identityNotFound, 'IDENTITY_NOT_FOUND')
    const passkeys = await c.trx
      .selectFrom('passkeys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', input.userId)
      .executeTakeFirstOrThrow()
    const otherWaysIn = (user.password_hash !== NO_PASSWORD ? 1 : 0) + Number(passkeys.n) + identities.length - 1
    if (otherWaysIn === 0) throw conflict(federationMessages.lastWayIn, 'LAST_SIGN_IN_METHOD')
    await c.trx.deleteFrom('federated_identities').where('id', '=', identity.id).execute()
    await c.record({ userId: input.userId, kind: 'security', activity: `Unlinked ${identity.providerName}`, details: identity.email, ip: input.ip })
    await c.emitUser('user.security_changed', input.userId, { change: 'identity-unlinked' })
  })
}
