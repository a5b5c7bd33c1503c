import { type Kysely, sql } from 'kysely'

/**
 * A delivery's lease gets a column of its own, in no index (decision 0564). The runner leased a
 * delivery by pushing `next_attempt_at`, the key of the due index, past the lease: every lease
 * rewrote the row's entries in all four of the table's indexes and left one more dead entry in
 * the due index, which each later lease's scan walked through until a vacuum. A lease now writes
 * `leased_until` and `attempts` only, which PostgreSQL can update in place on the row's page (a
 * HOT update) without touching an index; the table keeps a fifth of each page free for it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz;
    ALTER TABLE webhook_deliveries SET (fillfactor = 80);
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_deliveries RESET (fillfactor);
    ALTER TABLE webhook_deliveries DROP COLUMN leased_until;
  `.execute(db)
}
