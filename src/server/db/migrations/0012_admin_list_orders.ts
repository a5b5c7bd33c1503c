import { type Kysely, sql } from 'kysely'

/**
 * The admin's user list sorted by any column and filtered by verification, two-factor and
 * dormancy, at a million users (docs/decisions/0110):
 *
 * - every completed sign-in sets `users.last_sign_in_at`: a trigger on the sessions table, since
 *   every kind of sign-in (password, second factor, passkey, accepted invitation) starts a session
 *   and nothing else does. A trigger, not a new body of `start_session`, so the sign-in code paths
 *   may change their own functions without losing this;
 * - one index per sort key, with the id as tie-breaker, walked forwards or backwards for either
 *   order. A last sign-in sorts as `coalesce(last_sign_in_at, '-infinity')`: never signed in is
 *   the oldest sign-in, and the dormant filter ("no sign-in since X") is a range of the same index;
 * - partial newest-first indexes for the rare filter values (unverified, two-factor on), so those
 *   filters never walk the whole table to fill a page.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION users_note_sign_in() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      UPDATE users SET last_sign_in_at = NEW.created_at
      WHERE id = NEW.user_id AND (last_sign_in_at IS NULL OR last_sign_in_at < NEW.created_at);
      RETURN NULL;
    END
    $fn$;
    CREATE TRIGGER sessions_note_sign_in AFTER INSERT ON sessions
      FOR EACH ROW EXECUTE FUNCTION users_note_sign_in();

    -- Each carries the filtered columns, so that a filter on a sort's walk is read from the
    -- index (an index-only scan) rather than from one table page per user; the expression
    -- indexes also carry their own columns, which an index-only scan needs.
    CREATE INDEX users_order_name ON users (lower(name), id) INCLUDE (name, role, status, email_verified_at, mfa_enabled, last_sign_in_at);
    CREATE INDEX users_order_role ON users (role, id) INCLUDE (status, email_verified_at, mfa_enabled, last_sign_in_at);
    CREATE INDEX users_order_status ON users (status, id) INCLUDE (role, email_verified_at, mfa_enabled, last_sign_in_at);
    CREATE INDEX users_order_last_sign_in ON users ((coalesce(last_sign_in_at, '-infinity'::timestamptz)), id)
      INCLUDE (last_sign_in_at, role, status, email_verified_at, mfa_enabled);
    CREATE INDEX users_unverified_created_at ON users (created_at DESC, id DESC) WHERE email_verified_at IS NULL;
    CREATE INDEX users_mfa_created_at ON users (created_at DESC, id DESC) WHERE mfa_enabled;
  `.execute(db)
  // Statistics of the expression index, for the planner to judge the dormant filter's share.
  await sql`ANALYZE users`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX users_order_name, users_order_role, users_order_status, users_order_last_sign_in,
      users_unverified_created_at, users_mfa_created_at;
    DROP TRIGGER sessions_note_sign_in ON sessions;
    DROP FUNCTION users_note_sign_in();
  `.execute(db)
}
