import { type Kysely, sql } from 'kysely'

/**
 * Sign in with Accounts: the product as an OpenID Connect provider (docs/decisions/0400-0404).
 *
 * - `oidc_applications`: the apps an admin registered; `id` is the `client_id`. A confidential
 *   app's secret is kept only as its SHA-256 (256 random bits, like recovery codes: decision 0316).
 * - `oidc_payloads`: everything the protocol engine (`oidc-provider`) stores, through our adapter
 *   (oidc/adapter.ts): provider sessions, interactions, grants, codes, access and refresh tokens.
 *   The columns beside the payload are what it looks rows up by, and what the triggers below
 *   delete by; a grant's `last_used_at` is when a token was last issued under it (Connected apps).
 * - `oidc_keys`: the signing keys and cookie keys, generated once, sealed with a key derived from
 *   AUTH_SECRET, shared by every instance; a rotated-out signing key stays published until what it
 *   signed has expired (`retire_after`).
 * - `oidc_session_links`: which product session signed each provider session in.
 * - `oidc_logout_jobs`: back-channel logouts to deliver, retried while the app is down.
 * - an index for the activity filter "Applications" (like every other filter's, decision 0104);
 * - `sessions.amr`: how the product session was signed in (RFC 8176 values), for the ID token.
 *
 * One life for a session (decision 0402): when a product session ends, whatever the reason (a
 * sign-out, a device removed, sign-out everywhere, a suspension, a role change, a delete, a
 * password reset, a refresh token reused), the trigger below ends the provider sessions it
 * signed in, deletes every code and token issued through them, and queues a back-channel logout
 * for each app signed in through them, in the same transaction. Consent (the grant itself) stays.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sessions ADD COLUMN amr text[];

    CREATE TABLE oidc_applications (
      id text PRIMARY KEY,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
      type text NOT NULL CHECK (type IN ('confidential', 'public')),
      secret_hash bytea,
      redirect_uris text[] NOT NULL,
      post_logout_redirect_uris text[] NOT NULL DEFAULT '{}',
      backchannel_logout_uri text,
      allowed_roles text[] NOT NULL DEFAULT '{}',
      first_party boolean NOT NULL DEFAULT false,
      enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((type = 'confidential') = (secret_hash IS NOT NULL))
    );
    CREATE INDEX oidc_applications_created_at ON oidc_applications (created_at, id);

    CREATE TABLE oidc_payloads (
      model text NOT NULL,
      id text NOT NULL,
      payload jsonb NOT NULL,
      grant_id text,
      uid text,
      session_uid text,
      account_id text,
      client_id text,
      expires_at timestamptz,
      consumed_at timestamptz,
      last_used_at timestamptz,
      PRIMARY KEY (model, id)
    );
    CREATE INDEX oidc_payloads_grant_id ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL;
    CREATE INDEX oidc_payloads_uid ON oidc_payloads (uid) WHERE uid IS NOT NULL;
    CREATE INDEX oidc_payloads_session_uid ON oidc_payloads (session_uid) WHERE session_uid IS NOT NULL;
    CREATE INDEX oidc_payloads_account ON oidc_payloads (account_id, model) WHERE account_id IS NOT NULL;
    CREATE INDEX oidc_payloads_client ON oidc_payloads (client_id, model) WHERE client_id IS NOT NULL;
    CREATE INDEX oidc_payloads_expires_at ON oidc_payloads (expires_at) WHERE expires_at IS NOT NULL;

    CREATE TABLE oidc_keys (
      kid text PRIMARY KEY,
      use text NOT NULL CHECK (use IN ('sig', 'cookie')),
      alg text,
      sealed bytea NOT NULL,
      created_at timestamptz NOT NULL,
      retire_after timestamptz
    );
    CREATE INDEX oidc_keys_created_at ON oidc_keys (use, created_at);

    CREATE TABLE oidc_session_links (
      uid text PRIMARY KEY,
      session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX oidc_session_links_session_id ON oidc_session_links (session_id);

    CREATE TABLE oidc_logout_jobs (
      id bigserial PRIMARY KEY,
      client_id text NOT NULL,
      account_id text NOT NULL,
      sid text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      run_after timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      last_error text
    );
    CREATE INDEX oidc_logout_jobs_run_after ON oidc_logout_jobs (run_after);

    -- The activity filter "Applications": admins' changes to applications, people's consents and removals.
    CREATE INDEX activities_applications_created_at ON activities (created_at DESC, id DESC) INCLUDE (search_text) WHERE kind = 'applications';
  `.execute(db)

  await sql`
    CREATE FUNCTION end_provider_sessions(p_session_id uuid, p_now timestamptz) RETURNS void LANGUAGE plpgsql AS $fn$
    DECLARE
      uids text[];
    BEGIN
      SELECT array_agg(uid) INTO uids FROM oidc_session_links WHERE session_id = p_session_id;
      IF uids IS NULL THEN
        RETURN;
      END IF;
      -- A back-channel logout for every app signed in through those provider sessions that asked for one.
      INSERT INTO oidc_logout_jobs (client_id, account_id, sid, run_after, created_at)
        SELECT a.key, p.payload->>'accountId', a.value->>'sid', p_now, p_now
        FROM oidc_payloads p
        CROSS JOIN LATERAL jsonb_each(coalesce(p.payload->'authorizations', '{}'::jsonb)) a
        JOIN oidc_applications app ON app.id = a.key AND app.backchannel_logout_uri IS NOT NULL
        WHERE p.model = 'Session' AND p.uid = ANY (uids) AND p.payload ? 'accountId' AND a.value ? 'sid';
      DELETE FROM oidc_payloads WHERE session_uid = ANY (uids);
      DELETE FROM oidc_payloads WHERE model = 'Session' AND uid = ANY (uids);
      DELETE FROM oidc_session_links WHERE uid = ANY (uids);
    END;
    $fn$;

    CREATE FUNCTION sessions_end_provider_sessions() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM end_provider_sessions(OLD.id, now());
        RETURN OLD;
      END IF;
      PERFORM end_provider_sessions(NEW.id, NEW.revoked_at);
      RETURN NEW;
    END;
    $fn$;

    CREATE TRIGGER sessions_revoked_end_provider_sessions
      AFTER UPDATE OF revoked_at ON sessions
      FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
      EXECUTE FUNCTION sessions_end_provider_sessions();
    CREATE TRIGGER sessions_deleted_end_provider_sessions
      BEFORE DELETE ON sessions
      FOR EACH ROW WHEN (OLD.revoked_at IS NULL)
      EXECUTE FUNCTION sessions_end_provider_sessions();
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TRIGGER IF EXISTS sessions_revoked_end_provider_sessions ON sessions;
    DROP TRIGGER IF EXISTS sessions_deleted_end_provider_sessions ON sessions;
    DROP FUNCTION IF EXISTS sessions_end_provider_sessions();
    DROP FUNCTION IF EXISTS end_provider_sessions(uuid, timestamptz);
    DROP INDEX IF EXISTS activities_applications_created_at;
    DROP TABLE IF EXISTS oidc_logout_jobs, oidc_session_links, oidc_keys, oidc_payloads, oidc_applications;
    ALTER TABLE sessions DROP COLUMN IF EXISTS amr;
  `.execute(db)
}
