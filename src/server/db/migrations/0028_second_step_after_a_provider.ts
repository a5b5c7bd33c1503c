import { type Kysely, sql } from 'kysely'

/**
 * The sign-in's second step remembers what came before it (decision 0514):
 *
 * - `mfa_challenges.first_factor`: the RFC 8176 value of the first step, `pwd` for a password
 *   (every challenge made before this migration), `fed` for an identity provider. The session the
 *   second step opens says that method, then `otp` and `mfa`, so an ID token's `amr` never claims
 *   a password that nobody typed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE mfa_challenges ADD COLUMN first_factor text NOT NULL DEFAULT 'pwd' CHECK (first_factor IN ('pwd', 'fed'));
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE mfa_challenges DROP COLUMN IF EXISTS first_factor;
  `.execute(db)
}
