import { type Kysely, sql } from 'kysely'

/**
 * Users, sessions with their rotating refresh tokens, one-time e-mail tokens, the activity log,
 * throttling counters and the mail queue. Written in SQL so that it reads the same on PostgreSQL
 * and on PGlite; every timestamp is set by the application's clock, not by `now()`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;

    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL,
      email text NOT NULL,
      phone text,
      password_hash text NOT NULL,
      role text NOT NULL DEFAULT 'CLIENT' CHECK (role IN ('ADMIN', 'DEVELOPER', 'MODERATOR', 'CLIENT')),
      status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'INACTIVE', 'SUSPENDED')),
      email_verified_at timestamptz,
      picture_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT users_email_lower_case CHECK (email = lower(email))
    );
    -- Addresses are stored in lower case (checked above), so this is uniqueness regardless of case.
    CREATE UNIQUE INDEX users_email_key ON users (email);

    CREATE TABLE sessions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      last_refreshed_at timestamptz NOT NULL,
      idle_expires_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      revoked_reason text,
      ip_address text,
      user_agent text
    );
    CREATE INDEX sessions_user_id_live ON sessions (user_id) WHERE revoked_at IS NULL;
    CREATE INDEX sessions_expires_at ON sessions (expires_at);

    -- One row per refresh token ever issued in a session: the rotated ones stay so that a reuse
    -- can be recognised (and the session revoked) instead of looking like an unknown token.
    CREATE TABLE refresh_tokens (
      token_hash bytea PRIMARY KEY,
      session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      rotated_at timestamptz
    );
    CREATE INDEX refresh_tokens_session_id ON refresh_tokens (session_id);

    CREATE TABLE one_time_tokens (
      token_hash bytea PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      purpose text NOT NULL CHECK (purpose IN ('verify-email', 'reset-password')),
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    );
    CREATE INDEX one_time_tokens_user_purpose ON one_time_tokens (user_id, purpose) WHERE used_at IS NULL;

    -- Append-only audit trail. user_id is whom the entry is about, actor_id who did it; both
    -- survive the user's deletion as NULL ("Unknown User").
    CREATE TABLE activities (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id uuid REFERENCES users (id) ON DELETE SET NULL,
      actor_id uuid REFERENCES users (id) ON DELETE SET NULL,
      kind text NOT NULL,
      activity text NOT NULL,
      details text,
      ip_address text,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX activities_created_at ON activities (created_at DESC, id DESC);
    CREATE INDEX activities_user_created_at ON activities (user_id, created_at DESC, id DESC);
    CREATE INDEX activities_kind_created_at ON activities (kind, created_at DESC, id DESC);
    CREATE INDEX activities_actor_id ON activities (actor_id) WHERE actor_id IS NOT NULL;

    CREATE TABLE rate_limits (
      key text PRIMARY KEY,
      count integer NOT NULL,
      reset_at timestamptz NOT NULL
    );
    CREATE INDEX rate_limits_reset_at ON rate_limits (reset_at);

    -- Outgoing mail, written in the same transaction as the change that causes it and sent by
    -- the mail worker; the payload (which holds one-time links) is encrypted at rest.
    CREATE TABLE mail_jobs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      recipient text NOT NULL,
      payload text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      run_after timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      last_error text
    );
    CREATE INDEX mail_jobs_run_after ON mail_jobs (run_after);
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE mail_jobs, rate_limits, activities, one_time_tokens, refresh_tokens, sessions, users;
  `.execute(db)
}
