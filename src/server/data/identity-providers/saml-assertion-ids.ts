import type { Db } from '~server/db/types'

/**
 * The assertion IDs a SAML provider sent that were accepted (migration 0023), in the database every
 * instance shares: an ID is accepted once, until its assertion could no longer be valid anyway.
 */

/** Records the ID; false when it was accepted before (a replay). Rows past their time go first. */
export async function acceptAssertionIdOnce(db: Db, input: { providerId: string; assertionId: string; expiresAt: Date; now: Date }): Promise<boolean> {
  await db.deleteFrom('saml_assertion_ids').where('expires_at', '<', input.now).execute()
  const row = await db
    .insertInto('saml_assertion_ids')
    .values({ provider_id: input.providerId, assertion_id: input.assertionId, expires_at: input.expiresAt })
    .onConflict((oc) => oc.columns(['provider_id', 'assertion_id']).doNothing())
    .returning('assertion_id')
    .executeTakeFirst()
  return row !== undefined
}
