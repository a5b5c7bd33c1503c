import { sql } from 'kysely'
import type { Db } from '~server/db/types'

/**
 * The kinds of imported password hash some account may still hold (decision 0552): written by an
 * import in the transaction of the accounts that bring a kind, read by every failed password
 * check, and retired by the housekeeping once no account holds one.
 */

export async function listImportedPasswordKinds(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('imported_password_kinds').select('kind').orderBy('kind').execute()
  return rows.map((row) => row.kind)
}

export async function recordImportedPasswordKinds(trx: Db, kinds: { kind: string; pattern: string }[], now: Date): Promise<void> {
  if (kinds.length === 0) return
  await trx
    .insertInto('imported_password_kinds')
    .values(kinds.map(({ kind, pattern }) => ({ kind, pattern, first_imported_at: now })))
    .onConflict((oc) => oc.column('kind').doNothing())
    .execute()
}

/**
 * Forgets the kinds no account holds any more (their accounts signed in and were moved to
 * Argon2id, reset their password, or were deleted). The question reads the partial index of
 * accounts whose hash is not the product's own (migration 0021), whose condition is repeated
 * here word for word so that the planner can use it. The table is locked first against imports
 * (whose insert of a kind takes a conflicting lock): one that is adding accounts of a kind at this
 * moment commits before the question is asked, and one that starts meanwhile waits, then records
 * its kind again.
 */
export async function retireUnusedPasswordKinds(db: Db): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`LOCK TABLE imported_password_kinds IN SHARE ROW EXCLUSIVE MODE`.execute(trx)
    const { rows } = await sql<{ kind: string }>`
      DELETE FROM imported_password_kinds k
      WHERE NOT EXISTS (
        SELECT 1 FROM users u
        WHERE u.password_hash NOT LIKE '$argon2id$v=19$m=19456,t=2,p=1$%' AND u.password_hash ~ k.pattern
      )
      RETURNING k.kind
    `.execute(trx)
    return rows.map((row) => row.kind)
  })
}
