import { sql } from 'kysely'
import type { Db } from '~server/db/types'

/**
 * The settings of an import's transaction (decision 0557), for that transaction only.
 *
 * - No just-in-time compilation: a batch's statements are planned with statistics from when the
 *   tables were smaller, and a cost estimate above `jit_above_cost` (a batch of 10,000 lookups)
 *   would compile them for each batch, tens of milliseconds for a statement that runs in a few.
 * - Without `waitForDisk`, the commit does not wait for the write-ahead log to reach the disk:
 *   the batch is committed or not as a whole, and the database may lose the last few batches'
 *   commits only if it crashes itself, which a second run imports again, finding them missing.
 *   Only where the database is another process (PostgreSQL): the embedded database would crash
 *   with a killed importer.
 */
export async function setImportTransaction(trx: Db, options: { waitForDisk: boolean }): Promise<void> {
  await sql`
    SELECT set_config('jit', 'off', true),
      set_config('synchronous_commit', CASE WHEN ${options.waitForDisk} THEN current_setting('synchronous_commit') ELSE 'off' END, true)
  `.execute(trx)
}
