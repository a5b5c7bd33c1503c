import { type Kysely, sql } from 'kysely'

/**
 * Provisioning from a company's directory by SCIM 2.0 (contract section 13, decision 0531):
 *
 * - `users.scim_user_name`: the `userName` a directory gave, kept as given; an account it never
 *   named answers with its address. Unique without regard to case among those given (and checked
 *   against the addresses by the SCIM use cases, under a lock).
 * - `users.scim_external_id`: the directory's own id for the person, kept as given.
 * - `users.scim_given_name`, `users.scim_family_name`: the name's parts as given, answered while
 *   they still make up the account's name.
 * - `users_scim_user_name_lookup`: `userName eq "…"` (case-insensitive) reads one index entry, for
 *   every account, also those whose userName is their address.
 * - `users_scim_external_id`: `externalId eq "…"` reads one index entry.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE users
      ADD COLUMN scim_user_name text,
      ADD COLUMN scim_external_id text,
      ADD COLUMN scim_given_name text,
      ADD COLUMN scim_family_name text;
    CREATE UNIQUE INDEX users_scim_user_name ON users (lower(scim_user_name)) WHERE scim_user_name IS NOT NULL;
    CREATE INDEX users_scim_user_name_lookup ON users (lower(coalesce(scim_user_name, email)));
    CREATE INDEX users_scim_external_id ON users (scim_external_id) WHERE scim_external_id IS NOT NULL;
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX users_scim_external_id;
    DROP INDEX users_scim_user_name_lookup;
    DROP INDEX users_scim_user_name;
    ALTER TABLE users DROP COLUMN scim_family_name, DROP COLUMN scim_given_name, DROP COLUMN scim_external_id, DROP COLUMN scim_user_name;
  `.execute(db)
}
