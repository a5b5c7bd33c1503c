import { sql } from 'kysely'
import type { Db } from '~server/db/types'

/**
 * An import's batch commits without waiting for its write-ahead log to reach the disk (decision
 * 0557): the batch is committed or not as a whole, and the database may lose the last few
 * batches' commits only if it crashes itself, which a second run imports again, finding them
 * missing. PostgreSQL only: the embedded database would crash with a killed importer.
 */
export async function commitBatchWithoutWaiting(trx: Db): Promise<void> {
  await sql`SELECT set_config('synchronous_commit', 'off', true)`.execute(trx)
}
