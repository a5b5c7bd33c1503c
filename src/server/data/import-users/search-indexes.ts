import { sql } from 'kysely'
import type { Db } from '~server/db/types'

/**
 * The search indexes of `users` and `activities` (their GIN indexes: trigrams, pairs of letters,
 * the weekly activity search; decision 0102) while an import runs (decision 0555). They are kept
 * with `fastupdate = off`, every row's keys written into the index as the row is; an import turns
 * on the pending list instead, so that a batch's keys are written into each index together (the
 * same trigram once for many rows), and turns it off again at its end, emptying the list.
 */

/**
 * Held shared by every import while it runs, on PostgreSQL (where the server may run beside it):
 * housekeeping sets back what a killed import left only when it can take the lock alone.
 */
export const IMPORT_RUNNING_LOCK = 72_530_002

/**
 * The GIN indexes of `users` and `activities`, by name; with `keepingAList`, only those keeping a
 * pending list (an import runs, or one was killed before it set them back).
 */
export async function listSearchIndexes(db: Db, options: { keepingAList?: boolean } = {}): Promise<string[]> {
  const keeping = options.keepingAList ? sql`AND EXISTS (SELECT 1 FROM unnest(c.reloptions) AS option WHERE option ~* '^fastupdate=(on|true|yes|1)$')` : sql``
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
    WHERE i.indrelid IN ('users'::regclass, 'activities'::regclass) AND a.amname = 'gin' ${keeping}
    ORDER BY c.relname
  `.execute(db)
  return rows.map((row) => row.name)
}

/**
 * Sets the index's `fastupdate`. The change takes the index's strongest lock for a moment, which
 * waits for every transaction reading the table: after `waitMs` it gives up (false) rather than
 * hold up the requests queued behind it.
 */
export async function setPendingList(db: Db, index: string, on: boolean, waitMs: number): Promise<boolean> {
  try {
    await db.transaction().execute(async (trx) => {
      await sql`SELECT set_config('lock_timeout', ${`${waitMs}ms`}, true)`.execute(trx)
      await sql`ALTER INDEX ${sql.id(index)} SET (fastupdate = ${sql.raw(on ? 'on' : 'off')})`.execute(trx)
    })
    return true
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return false
    throw error
  }
}

/** Writes the index's pending list into the index proper. */
export async function emptyPendingList(db: Db, index: string): Promise<void> {
  await sql`SELECT gin_clean_pending_list(${index}::regclass)`.execute(db)
}
