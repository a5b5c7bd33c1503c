import { type Kysely, sql } from 'kysely'

/**
 * Accounts moved in from another system with their passwords (`npm run users:import`, decisions
 * 0550 to 0553):
 *
 * - `imported_accounts`: which account came from which record of which system (`format`,
 *   `source_id`: the seed application's ObjectId, Keycloak's user id, or the address as a CSV wrote
 *   it), in which run and at which line or position. A second run knows from it what it already
 *   did; the seed application's activity entries find their account through it.
 * - `imported_password_kinds`: the kinds of imported password hash (an algorithm with its cost
 *   parameters) that accounts may still hold, each with a pattern matching their stored form. A
 *   failed sign-in does the work of every kind listed, so that its time tells no kind of account
 *   from another; a kind no account holds any more is retired by the hourly housekeeping.
 * - `activities.user_agent`: the browser an imported entry names; `activities.import_source`:
 *   the imported entry's own id in its system, unique, so that no run imports an entry twice.
 * - `users_foreign_password_hash`: the accounts whose password is not yet in the product's own
 *   Argon2id form (its parameters as of this migration, spelled out), so the housekeeping's
 *   question "does any account still hold this kind" reads a few index entries, not every account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE imported_accounts (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      format text NOT NULL,
      source_id text NOT NULL,
      run_id uuid NOT NULL,
      position bigint NOT NULL,
      imported_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX imported_accounts_source ON imported_accounts (format, source_id);

    CREATE TABLE imported_password_kinds (
      kind text PRIMARY KEY,
      pattern text NOT NULL,
      first_imported_at timestamptz NOT NULL
    );

    ALTER TABLE activities ADD COLUMN user_agent text, ADD COLUMN import_source text;
    CREATE UNIQUE INDEX activities_import_source ON activities (import_source) WHERE import_source IS NOT NULL;

    CREATE INDEX users_foreign_password_hash ON users (id) WHERE password_hash NOT LIKE '$argon2id$v=19$m=19456,t=2,p=1$%';
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX users_foreign_password_hash;
    DROP INDEX activities_import_source;
    ALTER TABLE activities DROP COLUMN import_source, DROP COLUMN user_agent;
    DROP TABLE imported_password_kinds;
    DROP TABLE imported_accounts;
  `.execute(db)
}
