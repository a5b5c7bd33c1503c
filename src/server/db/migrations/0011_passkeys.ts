import { type Kysely, sql } from 'kysely'

/**
 * Passkeys (WebAuthn credentials) and the challenges they answer:
 *
 * - `passkeys`: one row per credential a user registered: its id as the browser names it
 *   (base64url, unique across all accounts), its COSE public key, the signature counter it last
 *   reported, its transports (hints for the browser), a name the user chose, and when it was
 *   created and last used. Removed with the account.
 * - `webauthn_challenges`: the random challenges handed out with registration and sign-in
 *   options, stored as SHA-256 hashes so that any instance can check them; each is deleted when it
 *   is used (single use) and is good for 5 minutes. A registration challenge belongs to the user
 *   who asked for it; a sign-in challenge belongs to nobody (discoverable credentials).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE passkeys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      credential_id text NOT NULL,
      public_key bytea NOT NULL,
      counter bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
      transports text[] NOT NULL DEFAULT '{}',
      backed_up boolean NOT NULL DEFAULT false,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
      created_at timestamptz NOT NULL,
      last_used_at timestamptz
    );
    CREATE UNIQUE INDEX passkeys_credential_id_key ON passkeys (credential_id);
    CREATE INDEX passkeys_user_id_created_at ON passkeys (user_id, created_at);

    CREATE TABLE webauthn_challenges (
      challenge_hash bytea PRIMARY KEY,
      purpose text NOT NULL CHECK (purpose IN ('registration', 'authentication')),
      user_id uuid REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      CHECK ((purpose = 'registration') = (user_id IS NOT NULL))
    );
    CREATE INDEX webauthn_challenges_expires_at ON webauthn_challenges (expires_at);
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE webauthn_challenges;
    DROP TABLE passkeys;
  `.execute(db)
}
