import { type Kysely, sql } from 'kysely'

/**
 * The device authorization grant (contract section 11, decisions 0505-0507): a device code's row of
 * `oidc_payloads` is also found by the code the person types (`user_code`, normalised: 8 letters,
 * unique while it is stored), and keeps when its app last polled for it (`last_polled_at`), so that
 * polling faster than the interval is answered `slow_down` by every instance alike.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE oidc_payloads ADD COLUMN user_code text, ADD COLUMN last_polled_at timestamptz;
    CREATE UNIQUE INDEX oidc_payloads_user_code ON oidc_payloads (user_code) WHERE user_code IS NOT NULL;
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX oidc_payloads_user_code;
    ALTER TABLE oidc_payloads DROP COLUMN user_code, DROP COLUMN last_polled_at;
  `.execute(db)
}
