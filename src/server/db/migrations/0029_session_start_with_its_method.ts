import { type Kysely, sql } from 'kysely'

/**
 * `start_session` takes how the account proved who it is (`sessions.amr`, RFC 8176 values; null
 * for a password), so that a sign-in by a passkey or an identity provider starts its session in
 * the one statement a password sign-in makes, instead of that statement and an update of the new
 * row after it (decision 0543).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION start_session(uuid, text, text, timestamptz, timestamptz, timestamptz, bytea, text, text);
    CREATE FUNCTION start_session(
      p_user uuid, p_ip text, p_user_agent text, p_now timestamptz, p_idle_until timestamptz,
      p_expires timestamptz, p_token bytea, p_kind text, p_activity text, p_amr text[]
    ) RETURNS uuid
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_session uuid;
    BEGIN
      INSERT INTO sessions (user_id, created_at, last_refreshed_at, idle_expires_at, expires_at, ip_address, user_agent, amr)
      VALUES (p_user, p_now, p_now, p_idle_until, p_expires, p_ip, p_user_agent, p_amr)
      RETURNING id INTO v_session;
      INSERT INTO refresh_tokens (token_hash, session_id, created_at) VALUES (p_token, v_session, p_now);
      INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
      VALUES (p_user, p_user, p_kind, p_activity, NULL, p_ip, p_now);
      RETURN v_session;
    END
    $fn$;
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION start_session(uuid, text, text, timestamptz, timestamptz, timestamptz, bytea, text, text, text[]);
    CREATE FUNCTION start_session(
      p_user uuid, p_ip text, p_user_agent text, p_now timestamptz, p_idle_until timestamptz,
      p_expires timestamptz, p_token bytea, p_kind text, p_activity text
    ) RETURNS uuid
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_session uuid;
    BEGIN
      INSERT INTO sessions (user_id, created_at, last_refreshed_at, idle_expires_at, expires_at, ip_address, user_agent)
      VALUES (p_user, p_now, p_now, p_idle_until, p_expires, p_ip, p_user_agent)
      RETURNING id INTO v_session;
      INSERT INTO refresh_tokens (token_hash, session_id, created_at) VALUES (p_token, v_session, p_now);
      INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
      VALUES (p_user, p_user, p_kind, p_activity, NULL, p_ip, p_now);
      RETURN v_session;
    END
    $fn$;
  `.execute(db)
}
