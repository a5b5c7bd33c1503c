import type { Db } from '~server/db/types'

/**
 * Replaces an account's password hash only if it is still the one that was checked (a
 * compare-and-set): of two sign-ins that checked the same imported hash at once, one replaces it
 * and the other finds it replaced and changes nothing; a password changed or reset meanwhile is
 * never overwritten. True when this call replaced it.
 */
export async function replacePasswordHashIfUnchanged(trx: Db, userId: string, checked: string, replacement: string): Promise<boolean> {
  const replaced = await trx
    .updateTable('users')
    .set({ password_hash: replacement })
    .where('id', '=', userId)
    .where('password_hash', '=', checked)
    .returning('id')
    .executeTakeFirst()
  return replaced !== undefined
}
