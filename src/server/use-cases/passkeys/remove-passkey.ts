import type { Transaction } from 'kysely'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { countUserPasskeys, deleteAllUserPasskeys, deleteUserPasskey } from '~server/data/passkeys/passkeys'
import { isUuid } from '~server/data/users/users'
import type { Database } from '~server/db/types'
import { passkeyNotFound } from './rename-passkey'

/**
 * Removes one of the signed-in user's passkeys (it can no longer sign in); another user's or an
 * unknown id is a 404, the same answer.
 */
export async function removePasskey(ctx: AppContext, input: { userId: string; id: string; ip: string }): Promise<void> {
  const { userId, id, ip } = input
  if (!isUuid(id)) throw passkeyNotFound()
  await commitChange(ctx, async (c) => {
    const row = await deleteUserPasskey(c.trx, { userId, id })
    if (!row) throw passkeyNotFound()
    await c.record({ userId, kind: 'updated', activity: 'Removed a passkey', details: row.name, ip })
    await c.emitUser('user.security_changed', userId, { change: 'passkey-removed' })
  })
}

/** How many passkeys a user has (`GET /auth/mfa` reports it). */
export const countPasskeys = countUserPasskeys

/**
 * Removes every passkey of a user inside the caller's transaction (an administrator's reset of a
 * user's second factors records its own entry); the number removed.
 */
export function removeAllPasskeys(trx: Transaction<Database>, userId: string): Promise<number> {
  return deleteAllUserPasskeys(trx, userId)
}
