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
 * - `use_second_step`: a second step's writes in one call: the challenge used, or its wrong code
 *   counted and recorded, in one round trip and one transaction (decision 0317).
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

    -- 'dead': no live challenge (unknown, used, expired or out of tries). 'wrong': the code (the
    -- step of a correct app code, or a recovery code's hash) is not the account's to use, or none
    -- was given: one more failure is counted and the entry given is recorded. 'ok': the code is
    -- used and so is the challenge. The session is started by the caller.
    CREATE FUNCTION use_second_step(
      p_token bytea, p_now timestamptz, p_max_failures integer, p_step integer, p_recovery bytea,
      p_ip text, p_kind text, p_activity text, p_details text
    ) RETURNS text
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_user uuid;
      v_claimed boolean := false;
    BEGIN
      SELECT user_id INTO v_user FROM mfa_challenges
      WHERE token_hash = p_token AND used_at IS NULL AND expires_at > p_now AND failures < p_max_failures
      FOR UPDATE;
      IF v_user IS NULL THEN
        RETURN 'dead';
      END IF;
      IF p_step IS NOT NULL THEN
        UPDATE totp_credentials SET last_used_step = p_step
        WHERE user_id = v_user AND enabled_at IS NOT NULL AND (last_used_step IS NULL OR last_used_step < p_step);
        v_claimed := FOUND;
      ELSIF p_recovery IS NOT NULL THEN
        UPDATE recovery_codes SET used_at = p_now WHERE user_id = v_user AND code_hash = p_recovery AND used_at IS NULL;
        v_claimed := FOUND;
      END IF;
      IF NOT v_claimed THEN
        UPDATE mfa_challenges SET failures = failures + 1 WHERE token_hash = p_token;
        INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
        VALUES (v_user, v_user, p_kind, p_activity, p_details, p_ip, p_now);
        RETURN 'wrong';
      END IF;
      UPDATE mfa_challenges SET used_at = p_now WHERE token_hash = p_token;
      RETURN 'ok';
    END
    $fn$;
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION use_second_step(bytea, timestamptz, integer, integer, bytea, text, text, text, text);
    DROP INDEX activities_security_created_at;
    DROP TABLE mfa_challenges, recovery_codes, totp_credentials;
  `.execute(db)
}
