import { type Kysely, sql } from 'kysely'

/**
 * Signed-in devices (docs/decisions/0310, 0311):
 *
 * - `sessions.last_used_at`: when the session last passed the session check, kept to the minute
 *   (the check writes it when it is a minute old or more). Null until the first signed-in call;
 *   a refresh counts as use through `last_refreshed_at`, so the last use is the later of the two.
 * - `sessions_user_id`: every session of an account, ended ones included, by account: the
 *   new-sign-in notice asks which browsers and systems an account used in the last 90 days, and
 *   deleting an account finds its sessions without reading the whole table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sessions ADD COLUMN last_used_at timestamptz;
    CREATE INDEX sessions_user_id ON sessions (user_id);
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX sessions_user_id;
    ALTER TABLE sessions DROP COLUMN last_used_at;
  `.execute(db)
}
