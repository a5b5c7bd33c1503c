import { type Kysely, sql } from 'kysely'

/**
 * The admin dashboard's sign-ups per day from a counter (decision 0119), instead of a walk of
 * the `users_created_at` index (about 41,000 entries for a month at a million accounts):
 *
 * - `sign_ups_by_day (day, slot, n)`: the accounts that exist, by the UTC day of their
 *   `created_at`, spread over 8 slots like `user_counts` and `activity_counts` (decision 0103);
 *   a day's number is the sum of its slots. A deleted account no longer counts on the day it was
 *   created.
 * - Kept by statement-level triggers with transition tables on insert and delete (one upsert per
 *   statement, whatever its size, rows in key order, one slot picked at random per statement),
 *   and by a row-level trigger on an update that moves an account's `created_at` to another UTC
 *   day: that trigger fires only for an UPDATE that sets `created_at` (a statement-level trigger
 *   with transition tables cannot be limited to a column, and would run on every sign-in).
 * - Filled here from the existing accounts, after the triggers exist: creating them locks `users`
 *   against writes until this migration commits, so no account is counted twice or missed.
 *
 * The slot count (8) is spelled out: a migration builds the same schema whatever the live code's
 * constants later become.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sign_ups_by_day (
      day date NOT NULL,
      slot smallint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (day, slot)
    );

    CREATE FUNCTION sign_ups_by_day_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      s smallint := floor(random() * 8)::smallint;
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

    CREATE FUNCTION sign_ups_by_day_move() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      s smallint := floor(random() * 8)::smallint;
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

    CREATE TRIGGER users_sign_ups_insert AFTER INSERT ON users
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sign_ups_by_day_apply();
    CREATE TRIGGER users_sign_ups_delete AFTER DELETE ON users
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sign_ups_by_day_apply();
    CREATE TRIGGER users_sign_ups_move AFTER UPDATE OF created_at ON users
      FOR EACH ROW WHEN ((OLD.created_at AT TIME ZONE 'UTC')::date IS DISTINCT FROM (NEW.created_at AT TIME ZONE 'UTC')::date)
      EXECUTE FUNCTION sign_ups_by_day_move();

    INSERT INTO sign_ups_by_day (day, slot, n)
      SELECT (created_at AT TIME ZONE 'UTC')::date, 0, count(*) FROM users GROUP BY 1;
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TRIGGER users_sign_ups_insert ON users;
    DROP TRIGGER users_sign_ups_delete ON users;
    DROP TRIGGER users_sign_ups_move ON users;
    DROP FUNCTION sign_ups_by_day_apply();
    DROP FUNCTION sign_ups_by_day_move();
    DROP TABLE sign_ups_by_day;
  `.execute(db)
}
