import { type Kysely, sql } from 'kysely'

/**
 * The trigger-kept totals (`user_counts`, `activity_counts`, `sign_ups_by_day`, decision 0103)
 * take their slot from the database connection instead of at random (decision 0528): slot
 * `pg_backend_pid() % 64`. With eight random slots, ten pooled connections writing at once always
 * had two on one counter row, and the second waited for the first's commit: an admin renaming
 * people 200 times a second spent most of its time in that wait. Now two transactions meet on a
 * counter row only when their connections' process ids are equal modulo 64. A total is still the
 * sum of its slots, so the rows of slots 0 to 7 keep counting.
 *
 * And `user_counts` follows an update of a row only when one of its four keys changed: a row-level
 * trigger `AFTER UPDATE OF role, status, email_verified_at, mfa_enabled ... WHEN (a key differs)`
 * replaces the statement-level one, which ran (transition tables and an aggregate) after every
 * update of `users`, a sign-in's `last_sign_in_at` and a rename included. PostgreSQL allows no
 * column list on a trigger with transition tables; updates of keys are single rows in this product.
 */
const SLOTS = 64

function userCounts(slot: ReturnType<typeof sql.raw>) {
  return sql`
    CREATE OR REPLACE FUNCTION user_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      s smallint := ${slot};
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO user_counts (role, status, verified, mfa, slot, n)
          SELECT role, status, email_verified_at IS NOT NULL, mfa_enabled, s, count(*) FROM new_rows
          GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (role, status, verified, mfa, slot) DO UPDATE SET n = user_counts.n + EXCLUDED.n;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO user_counts (role, status, verified, mfa, slot, n)
          SELECT role, status, email_verified_at IS NOT NULL, mfa_enabled, s, -count(*) FROM old_rows
          GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (role, status, verified, mfa, slot) DO UPDATE SET n = user_counts.n + EXCLUDED.n;
      ELSE
        INSERT INTO user_counts (role, status, verified, mfa, slot, n)
          SELECT role, status, verified, mfa, s, sum(d) FROM (
            SELECT role, status, email_verified_at IS NOT NULL AS verified, mfa_enabled AS mfa, -1 AS d FROM old_rows
            UNION ALL
            SELECT role, status, email_verified_at IS NOT NULL, mfa_enabled, 1 FROM new_rows
          ) changes
          GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4
          ON CONFLICT (role, status, verified, mfa, slot) DO UPDATE SET n = user_counts.n + EXCLUDED.n;
      END IF;
      RETURN NULL;
    END
    $fn$;
  `
}

function activityCounts(slot: ReturnType<typeof sql.raw>) {
  return sql`
    CREATE OR REPLACE FUNCTION activity_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      s smallint := ${slot};
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO activity_counts (kind, slot, n)
          SELECT kind, s, count(*) FROM new_rows GROUP BY kind ORDER BY kind
          ON CONFLICT (kind, slot) DO UPDATE SET n = activity_counts.n + EXCLUDED.n;
      ELSE
        INSERT INTO activity_counts (kind, slot, n)
          SELECT kind, s, -count(*) FROM old_rows GROUP BY kind ORDER BY kind
          ON CONFLICT (kind, slot) DO UPDATE SET n = activity_counts.n + EXCLUDED.n;
      END IF;
      RETURN NULL;
    END
    $fn$;
  `
}

function signUpsByDay(slot: ReturnType<typeof sql.raw>) {
  return sql`
    CREATE OR REPLACE FUNCTION sign_ups_by_day_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      s smallint := ${slot};
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO sign_ups_by_day (day, slot, n)
          SELECT (created_at AT TIME ZONE 'UTC')::date, s, count(*) FROM new_rows GROUP BY 1 ORDER BY 1
          ON CONFLICT (day, slot) DO UPDATE SET n = sign_ups_by_day.n + EXCLUDED.n;
      ELSE
        INSERT INTO sign_ups_by_day (day, slot, n)
          SELECT (created_at AT TIME ZONE 'UTC')::date, s, -count(*) FROM old_rows GROUP BY 1 ORDER BY 1
          ON CONFLICT (day, slot) DO UPDATE SET n = sign_ups_by_day.n + EXCLUDED.n;
      END IF;
      RETURN NULL;
    END
    $fn$;

    CREATE OR REPLACE FUNCTION sign_ups_by_day_move() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      s smallint := ${slot};
    BEGIN
      INSERT INTO sign_ups_by_day (day, slot, n)
        SELECT day, s, d FROM (VALUES
          ((OLD.created_at AT TIME ZONE 'UTC')::date, -1),
          ((NEW.created_at AT TIME ZONE 'UTC')::date, 1)
        ) AS moved (day, d)
        ORDER BY day
        ON CONFLICT (day, slot) DO UPDATE SET n = sign_ups_by_day.n + EXCLUDED.n;
      RETURN NULL;
    END
    $fn$;
  `
}

/** A row whose keys changed moves its count from the old keys to the new, in the connection's slot. */
const userCountsMove = (slot: ReturnType<typeof sql.raw>) => sql`
  CREATE FUNCTION user_counts_move() RETURNS trigger LANGUAGE plpgsql AS $fn$
  DECLARE
    s smallint := ${slot};
  BEGIN
    INSERT INTO user_counts (role, status, verified, mfa, slot, n)
      SELECT role, status, verified, mfa, s, sum(d) FROM (VALUES
        (OLD.role, OLD.status, OLD.email_verified_at IS NOT NULL, OLD.mfa_enabled, -1),
        (NEW.role, NEW.status, NEW.email_verified_at IS NOT NULL, NEW.mfa_enabled, 1)
      ) AS moved (role, status, verified, mfa, d)
      GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4
      ON CONFLICT (role, status, verified, mfa, slot) DO UPDATE SET n = user_counts.n + EXCLUDED.n;
    RETURN NULL;
  END
  $fn$;
  DROP TRIGGER users_count_update ON users;
  CREATE TRIGGER users_count_update AFTER UPDATE OF role, status, email_verified_at, mfa_enabled ON users
    FOR EACH ROW WHEN (
      OLD.role IS DISTINCT FROM NEW.role OR OLD.status IS DISTINCT FROM NEW.status
      OR (OLD.email_verified_at IS NULL) <> (NEW.email_verified_at IS NULL) OR OLD.mfa_enabled IS DISTINCT FROM NEW.mfa_enabled
    )
    EXECUTE FUNCTION user_counts_move();
`

async function defineAll(db: Kysely<unknown>, slot: ReturnType<typeof sql.raw>): Promise<void> {
  await userCounts(slot).execute(db)
  await activityCounts(slot).execute(db)
  await signUpsByDay(slot).execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const slot = sql.raw(`(pg_backend_pid() % ${SLOTS})::smallint`)
  await defineAll(db, slot)
  await userCountsMove(slot).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TRIGGER users_count_update ON users;
    DROP FUNCTION user_counts_move();
    CREATE TRIGGER users_count_update AFTER UPDATE ON users
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_counts_apply();
  `.execute(db)
  await defineAll(db, sql.raw('floor(random() * 8)::smallint'))
}
