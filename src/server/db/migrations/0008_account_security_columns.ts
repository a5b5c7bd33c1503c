import { type Kysely, sql } from 'kysely'

/**
 * Two columns the administration lists sort and filter on, kept on the account row so that a
 * list of a million accounts never has to look at sessions or second factors:
 *
 * - `last_sign_in_at`: when the account last completed a sign-in (null: never). Filled here from
 *   the newest session each account ever started.
 * - `mfa_enabled`: whether the account has a second factor (an authenticator app); kept true or
 *   false by the calls that turn it on and off.
 *
 * Their indexes come with the list features that use them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('last_sign_in_at', 'timestamptz').execute()
  await db.schema
    .alterTable('users')
    .addColumn('mfa_enabled', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute()
  await sql`
    UPDATE users u SET last_sign_in_at = s.last_start
    FROM (SELECT user_id, max(created_at) AS last_start FROM sessions GROUP BY user_id) s
    WHERE s.user_id = u.id
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('mfa_enabled').dropColumn('last_sign_in_at').execute()
}
