import type { Transaction } from 'kysely'
import type { Database } from '~server/db/types'

/**
 * The rows a deleted account takes with it, inside the deletion's transaction (docs/decisions/0561).
 * Most go by their foreign keys (`ON DELETE CASCADE`): sessions and their refresh tokens, one-time
 * links, the picture, the authenticator app's secret, recovery codes, waiting second steps,
 * passkeys and their challenges, the links of provider sessions. What the protocol engine stores
 * (`oidc_payloads`: grants, codes, access and refresh tokens, provider sessions) names the account
 * by a text id, without a foreign key, and is deleted here. Activity entries stay: their user
 * becomes null (`ON DELETE SET NULL`), shown as unknown.
 */

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
