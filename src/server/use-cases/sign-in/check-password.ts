import { readForeignHash } from '~server/auth/password-hashes'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { replacePasswordHashIfUnchanged } from '~server/data/import-users/password-upgrade'

/**
 * The password typed at sign-in, checked against the account's stored hash; when that hash is
 * another system's (an imported account's first sign-in, decision 0551) or the product's with older
 * parameters, it is replaced by the product's Argon2id of the same password in the same request,
 * and the person notices nothing. Two sign-ins at once replace it once (the compare-and-set of
 * `replacePasswordHashIfUnchanged`); the replacement has its activity entry.
 */
export async function checkPassword(ctx: AppContext, account: { id: string; password_hash: string }, password: string, ip: string | null): Promise<boolean> {
  if (!(await ctx.hasher.verify(account.password_hash, password))) return false
  if (ctx.hasher.needsRehash(account.password_hash)) {
    const upgraded = await ctx.hasher.hash(password)
    const before = readForeignHash(account.password_hash)
    const scheme = 'scheme' in before ? before.scheme : 'older'
    await commitChange(ctx, async (c) => {
      if (!(await replacePasswordHashIfUnchanged(c.trx, account.id, account.password_hash, upgraded))) return
      await c.record({ userId: account.id, kind: 'security', activity: 'Upgraded password storage', details: `${scheme} → Argon2id`, ip })
    })
  }
  return true
}
