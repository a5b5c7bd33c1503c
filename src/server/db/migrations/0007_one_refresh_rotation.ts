import { type Kysely, sql } from 'kysely'

/**
 * Refresh-token rotation in one place, with the grace that never starts a second chain
 * (decision 0302).
 *
 * Until now the rules lived twice: the common case in `rotate_fresh_refresh_token` (0003), and
 * everything else (reuse inside and after the grace) in a TypeScript transaction, where a token
 * presented again within 10 s of its rotation got a brand-new successor each time: three replays,
 * three independent working chains. `rotate_refresh_token` takes every case, in one statement and
 * so one transaction and one round trip:
 *
 * - a fresh token of a live session of a usable account: rotated, its successor issued, and the
 *   successor kept on the session, sealed (AES-256-GCM by the caller, key from AUTH_SECRET), as
 *   `refresh_token_sealed`;
 * - a rotated token within the grace (two tabs, or a retry after a lost answer): the session's
 *   current token again, from that sealed copy, never a new one. A rotation of the same session in
 *   progress is waited for (FOR SHARE), so the copy read is the newest;
 * - a rotated token after the grace: the whole session is revoked and the activity entry saying
 *   why is written, in the same transaction;
 * - an unknown token, an ended session, or an account no longer allowed in (the session is then
 *   revoked): nothing is issued.
 *
 * The statements still look one row of one table up by key from a value already known (0003's
 * reason: no plan can start anywhere else).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sessions ADD COLUMN refresh_token_sealed bytea;

    DROP FUNCTION rotate_fresh_refresh_token(bytea, bytea, timestamptz, timestamptz);

    CREATE FUNCTION rotate_refresh_token(
      p_token bytea, p_next bytea, p_next_sealed bytea, p_now timestamptz, p_idle_until timestamptz,
      p_grace_from timestamptz, p_ip text, p_reuse_kind text, p_reuse_activity text
    ) RETURNS TABLE (outcome text, session_id uuid, user_id uuid, sealed bytea)
    LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      v_session uuid;
      v_rotated timestamptz;
      v_user uuid;
      v_revoked timestamptz;
      v_idle timestamptz;
      v_expires timestamptz;
    BEGIN
      -- The token, locked: a second request with it waits here, then finds it rotated.
      SELECT t.session_id, t.rotated_at INTO v_session, v_rotated FROM refresh_tokens AS t
      WHERE t.token_hash = p_token
      FOR UPDATE;
      IF NOT FOUND THEN
        outcome := 'unknown';
        RETURN NEXT;
        RETURN;
      END IF;

      SELECT s.user_id, s.revoked_at, s.idle_expires_at, s.expires_at INTO v_user, v_revoked, v_idle, v_expires
      FROM sessions AS s WHERE s.id = v_session;
      session_id := v_session;
      user_id := v_user;
      IF v_revoked IS NOT NULL OR v_idle <= p_now OR v_expires <= p_now THEN
        outcome := 'ended';
        RETURN NEXT;
        RETURN;
      END IF;

      IF v_rotated IS NOT NULL AND v_rotated < p_grace_from THEN
        -- Used before, and not moments ago: someone else holds this chain. The session ends.
        UPDATE sessions AS s SET revoked_at = p_now, revoked_reason = 'refresh token reused'
        WHERE s.id = v_session AND s.revoked_at IS NULL;
        INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
        VALUES (v_user, v_user, p_reuse_kind, p_reuse_activity, NULL, p_ip, p_now);
        outcome := 'reused';
        RETURN NEXT;
        RETURN;
      END IF;

      PERFORM 1 FROM users AS u WHERE u.id = v_user AND u.status = 'ACTIVE' AND u.email_verified_at IS NOT NULL;
      IF NOT FOUND THEN
        UPDATE sessions AS s SET revoked_at = p_now, revoked_reason = 'account not usable'
        WHERE s.id = v_session AND s.revoked_at IS NULL;
        outcome := 'refused';
        RETURN NEXT;
        RETURN;
      END IF;

      IF v_rotated IS NOT NULL THEN
        -- Within the grace: the token the session holds now, as it was handed out.
        SELECT s.refresh_token_sealed INTO sealed FROM sessions AS s
        WHERE s.id = v_session AND s.revoked_at IS NULL
        FOR SHARE;
        outcome := CASE WHEN FOUND THEN 'replayed' ELSE 'ended' END;
        RETURN NEXT;
        RETURN;
      END IF;

      -- The session extended and its new token kept (sealed), unless a sign-out got to it first.
      UPDATE sessions AS s
      SET last_refreshed_at = p_now, idle_expires_at = LEAST(p_idle_until, s.expires_at), refresh_token_sealed = p_next_sealed
      WHERE s.id = v_session AND s.revoked_at IS NULL;
      IF NOT FOUND THEN
        outcome := 'ended';
        RETURN NEXT;
        RETURN;
      END IF;
      UPDATE refresh_tokens AS t SET rotated_at = p_now WHERE t.token_hash = p_token;
      INSERT INTO refresh_tokens (token_hash, session_id, created_at) VALUES (p_next, v_session, p_now);
      outcome := 'rotated';
      RETURN NEXT;
    END
    $fn$;
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP FUNCTION rotate_refresh_token(bytea, bytea, bytea, timestamptz, timestamptz, timestamptz, text, text, text);
    ALTER TABLE sessions DROP COLUMN refresh_token_sealed;
  `.execute(db)
  // 0003's function again, as it was.
  const { up: recreate } = await import('./0003_refresh_rotation_function')
  await recreate(db)
}
