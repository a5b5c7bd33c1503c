import { type Kysely, sql } from 'kysely'

/**
 * A passkey can confirm an action of its signed-in owner (deleting the account, decision 0561), as
 * a password does: the challenge handed out for that is a third kind of `webauthn_challenges`
 * row, `confirmation`, bound to the account that asked for it (like a registration challenge), so
 * that neither a sign-in challenge nor another account's can be answered in its place.
 *
 * The two checks of migration 0011 are replaced: the purposes now include `confirmation`, and a
 * challenge belongs to a user unless it is a sign-in's. They were unnamed there: PostgreSQL named
 * them `webauthn_challenges_purpose_check` and `webauthn_challenges_check`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webauthn_challenges DROP CONSTRAINT IF EXISTS webauthn_challenges_purpose_check;
    ALTER TABLE webauthn_challenges DROP CONSTRAINT IF EXISTS webauthn_challenges_check;
    ALTER TABLE webauthn_challenges ADD CONSTRAINT webauthn_challenges_purpose
      CHECK (purpose IN ('registration', 'authentication', 'confirmation'));
    ALTER TABLE webauthn_challenges ADD CONSTRAINT webauthn_challenges_owner
      CHECK ((purpose = 'authentication') = (user_id IS NULL));
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DELETE FROM webauthn_challenges WHERE purpose = 'confirmation';
    ALTER TABLE webauthn_challenges DROP CONSTRAINT IF EXISTS webauthn_challenges_purpose;
    ALTER TABLE webauthn_challenges DROP CONSTRAINT IF EXISTS webauthn_challenges_owner;
    ALTER TABLE webauthn_challenges ADD CONSTRAINT webauthn_challenges_purpose_check CHECK (purpose IN ('registration', 'authentication'));
    ALTER TABLE webauthn_challenges ADD CONSTRAINT webauthn_challenges_check CHECK ((purpose = 'registration') = (user_id IS NOT NULL));
  `.execute(db)
}
