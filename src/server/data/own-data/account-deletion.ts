import { sql, type Transaction } from 'kysely'
import type { Database } from '~server/db/types'

/**
 * The rows a deleted account takes with it, inside the deletion's transaction (docs/decisions/0561).
 * Most go by their foreign keys (`ON DELETE CASCADE`): sessions and their refresh tokens, one-time
 * links, the picture, the authenticator app's secret, recovery codes, waiting second steps,
 * passkeys and their challenges, the links of provider sessions. What the protocol engine stores
 * (`oidc_payloads`: grants, codes, access and refresh tokens, provider sessions) names the account
 * by a text id, without a foreign key, and is deleted here. Activity entries stay, their user and
 * actor made null here (as `ON DELETE SET NULL` would), shown as unknown.
 */

/**
 * Entries set free per statement (`detachBatch`). Each entry set free is written again with every
 * index of the log (its search text loses the account's name and address): 20,000 of them in one
 * statement came within a second of the pool's 10-second statement timeout on PostgreSQL (on a
 * busy machine), and 100,000 outlasted it. In statements of this many, each short, the whole
 * stays in the deletion's transaction. Tests make it small, to cross batches with few entries.
 */
export const deletionTuning = { detachBatch: 5_000 }

/**
 * The account's activity entries, and the entries it made about others, no longer name it: its
 * user and actor become null, both in one write of each entry (the foreign keys' `SET NULL` would
 * write an entry it both is about and made twice). Returns the number of entries set free.
 */
export async function detachActivity(trx: Transaction<Database>, userId: string): Promise<number> {
  const batch = deletionTuning.detachBatch
  let detached = 0
  for (;;) {
    const result = await sql`
      UPDATE activities SET user_id = NULL, actor_id = CASE WHEN actor_id = ${userId} THEN NULL ELSE actor_id END
      WHERE id IN (SELECT id FROM activities WHERE user_id = ${userId} LIMIT ${batch})`.execute(trx)
    const count = Number(result.numAffectedRows ?? 0n)
    detached += count
    if (count < batch) break
  }
  for (;;) {
    const result = await sql`
      UPDATE activities SET actor_id = NULL WHERE id IN (SELECT id FROM activities WHERE actor_id = ${userId} LIMIT ${batch})`.execute(trx)
    const count = Number(result.numAffectedRows ?? 0n)
    detached += count
    if (count < batch) return detached
  }
}

/** Every grant, code, token and provider session of the account at every application; the number deleted. */
export async function deleteAccountAppData(trx: Transaction<Database>, userId: string): Promise<number> {
  const result = await trx.deleteFrom('oidc_payloads').where('account_id', '=', userId).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** The account's row, and with it every row that references it; false when it was gone already. */
export async function deleteAccountRow(trx: Transaction<Database>, userId: string): Promise<boolean> {
  const result = await trx.deleteFrom('users').where('id', '=', userId).executeTakeFirst()
  return result.numDeletedRows === 1n
}
