import { type Kysely, sql } from 'kysely'

/**
 * Two-factor sign-in (decision 0315):
 *
 * - `totp_credentials`: an account's authenticator-app secret, sealed (AES-256-GCM under a key
 *   derived from AUTH_SECRET). `enabled_at` is null while a setup waits for its first code;
 *   `last_used_step` is the last 30-second step whose code was accepted, so no code is accepted twice.
 * - `recovery_codes`: single-use codes, only their SHA-256 hashes.
 * - `mfa_challenges`: the sign-in's second step, between a correct password and a correct code:
 *   the hashed `mfaToken`, its expiry, its wrong codes so far and when it was used.
 * - an index for the activity filter's new value `security`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE totp_credentials (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      secret_sealed bytea NOT NULL,
      created_at timestamptz NOT NULL,
      enabled_at timestamptz,
      last_used_step integer
    );

    CREATE TABLE recovery_codes (
      code_hash bytea NOT NULL,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      used_at timestamptz,
      PRIMARY KEY (user_id, code_hash)
    );

    CREATE TABLE mfa_challenges (
      token_hash bytea PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      failures integer NOT NULL DEFAULT 0,
      used_at timestamptz
    );
    CREATE INDEX mfa_challenges_user_id ON mfa_challenges (user_id);
    CREATE INDEX mfa_challenges_expires_at ON mfa_challenges (expires_at);

    CREATE INDEX activities_security_created_at ON activities (created_at DESC, id DESC) INCLUDE (search_text) WHERE kind = 'security';
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX activities_security_created_at;
    DROP TABLE mfa_challenges, recovery_codes, totp_credentials;
  `.execute(db)
}
