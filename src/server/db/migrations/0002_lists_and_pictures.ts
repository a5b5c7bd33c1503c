import { type Kysely, sql } from 'kysely'

/**
 * Profile pictures, and what keeps the user list, searches, activity logs and statistics fast at
 * a million users and ten million activity entries:
 *
 * - `pictures`: re-encoded images kept in the database (every instance serves the same bytes);
 * - newest-first indexes for every list and filter, so a page is an index walk, never a sort; for
 *   the activity filter, one partial index per filter value (its leading column is the time, so the
 *   planner sees that a walk of it reads the log in order, which it cannot see in (kind, time));
 *   the activity ones carry the search text, so a search walking them never reads the table;
 * - `search_text`: what a search looks through, in lower case, on one row: a user's name and
 *   e-mail; an entry's text, details and its user's name and e-mail (kept up to date by triggers
 *   when the user is renamed or deleted). Searching one lower-case column with LIKE on a trigram
 *   index is several times cheaper than ILIKE across a join, and lets the planner combine the
 *   search with a time range;
 * - prefix indexes for searches too short for trigrams;
 * - `user_counts` and `activity_counts`: totals kept by statement-level triggers, so statistics
 *   and unfiltered totals never count a big table. Each total is spread over a few slots, picked
 *   at random per statement, so concurrent writers rarely wait on the same counter row;
 * - finer statistics on the searched columns, so the planner can tell a common term from a rare one.
 */
export const COUNTER_SLOTS = 8

const kindIndex = (kind: string) => `activities_${kind.replace(/\W+/g, '_')}_created_at`
/**
 * The activity filter's values when this migration was written, spelled out: a migration must
 * build the same schema whatever the live code's constants later become. A new filter value
 * gets its index in a migration of its own.
 */
const FILTERED_KINDS = ['logged in', 'registered', 'updated', 'deleted', 'verified', 'reset', 'logged out'] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE pictures (
      id text PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      content_type text NOT NULL,
      data bytea NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX pictures_user_id ON pictures (user_id);

    CREATE INDEX users_created_at ON users (created_at DESC, id DESC);
    CREATE INDEX users_role_created_at ON users (role, created_at DESC, id DESC);
    CREATE INDEX users_status_created_at ON users (status, created_at DESC, id DESC);
    CREATE INDEX users_role_status_created_at ON users (role, status, created_at DESC, id DESC);
    CREATE INDEX users_name_prefix ON users (lower(name) text_pattern_ops);
    CREATE INDEX users_email_prefix ON users (email text_pattern_ops);

    ALTER TABLE users ADD COLUMN search_text text GENERATED ALWAYS AS (lower(name || E'\n' || email)) STORED;
    ALTER TABLE users ALTER COLUMN search_text SET STATISTICS 1000;
    CREATE INDEX users_search_trgm ON users USING gin (search_text gin_trgm_ops) WITH (fastupdate = off);

    CREATE FUNCTION activity_search_text(activity text, details text, user_name text, user_email text)
      RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN lower(activity || E'\n' || coalesce(details, '') || E'\n' || coalesce(user_name, '') || E'\n' || coalesce(user_email, ''));

    ALTER TABLE activities ADD COLUMN search_text text;
    UPDATE activities a SET search_text = activity_search_text(a.activity, a.details, u.name, u.email)
      FROM users u WHERE u.id = a.user_id;
    UPDATE activities SET search_text = activity_search_text(activity, details, NULL, NULL) WHERE search_text IS NULL;
    ALTER TABLE activities ALTER COLUMN search_text SET NOT NULL;
    ALTER TABLE activities ALTER COLUMN search_text SET STATISTICS 1000;
    CREATE INDEX activities_search_trgm ON activities USING gin (search_text gin_trgm_ops) WITH (fastupdate = off);

    CREATE TABLE user_counts (
      role text NOT NULL,
      status text NOT NULL,
      slot smallint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (role, status, slot)
    );

    CREATE TABLE activity_counts (
      kind text NOT NULL,
      slot smallint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (kind, slot)
    );

    INSERT INTO user_counts (role, status, slot, n)
      SELECT role, status, 0, count(*) FROM users GROUP BY role, status;
    INSERT INTO activity_counts (kind, slot, n)
      SELECT kind, 0, count(*) FROM activities GROUP BY kind;
  `.execute(db)

  // Newest-first walks of the log (all entries, or one filter's) read the search text from the
  // index itself, never the table. Vacuum runs often on this append-only table so that the
  // newest pages are soon marked all-visible and those walks stay index-only.
  await sql`
    DROP INDEX activities_created_at;
    CREATE INDEX activities_created_at ON activities (created_at DESC, id DESC) INCLUDE (search_text);
    DROP INDEX activities_kind_created_at;
    ALTER TABLE activities SET (autovacuum_vacuum_insert_scale_factor = 0.002, autovacuum_vacuum_insert_threshold = 10000);
  `.execute(db)
  for (const kind of FILTERED_KINDS) {
    await sql`CREATE INDEX ${sql.id(kindIndex(kind))} ON activities (created_at DESC, id DESC) INCLUDE (search_text)
      WHERE kind = ${sql.lit(kind)}`.execute(db)
  }

  // An entry's search text follows its user: set on insert, refreshed when the user is renamed
  // or changes address, and cleared of the user when the user is deleted (user_id set to NULL).
  await sql`
    CREATE FUNCTION activities_fill_search_text() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      who record;
    BEGIN
      SELECT name, email INTO who FROM users WHERE id = NEW.user_id;
      NEW.search_text := activity_search_text(NEW.activity, NEW.details, who.name, who.email);
      RETURN NEW;
    END
    $fn$;
    CREATE TRIGGER activities_search_text_insert BEFORE INSERT ON activities
      FOR EACH ROW EXECUTE FUNCTION activities_fill_search_text();
    CREATE TRIGGER activities_search_text_user BEFORE UPDATE OF user_id ON activities
      FOR EACH ROW WHEN (NEW.user_id IS DISTINCT FROM OLD.user_id) EXECUTE FUNCTION activities_fill_search_text();

    CREATE FUNCTION users_refresh_activity_search_text() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      UPDATE activities SET search_text = activity_search_text(activity, details, NEW.name, NEW.email) WHERE user_id = NEW.id;
      RETURN NULL;
    END
    $fn$;
    CREATE TRIGGER users_search_text_activities AFTER UPDATE OF name, email ON users
      FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.email IS DISTINCT FROM NEW.email)
      EXECUTE FUNCTION users_refresh_activity_search_text();
  `.execute(db)

  // Rows are upserted in key order, so two transactions never take counter locks crosswise.
  await sql`
    CREATE FUNCTION user_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      s smallint := floor(random() * ${sql.lit(COUNTER_SLOTS)})::smallint;
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO user_counts (role, status, slot, n)
          SELECT role, status, s, count(*) FROM new_rows GROUP BY role, status ORDER BY role, status
          ON CONFLICT (role, status, slot) DO UPDATE SET n = user_counts.n + EXCLUDED.n;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO user_counts (role, status, slot, n)
          SELECT role, status, s, -count(*) FROM old_rows GROUP BY role, status ORDER BY role, status
          ON CONFLICT (role, status, slot) DO UPDATE SET n = user_counts.n + EXCLUDED.n;
      ELSE
        INSERT INTO user_counts (role, status, slot, n)
          SELECT role, status, s, sum(d) FROM (
            SELECT role, status, -1 AS d FROM old_rows
            UNION ALL
            SELECT role, status, 1 AS d FROM new_rows
          ) changes
          GROUP BY role, status HAVING sum(d) <> 0 ORDER BY role, status
          ON CONFLICT (role, status, slot) DO UPDATE SET n = user_counts.n + EXCLUDED.n;
      END IF;
      RETURN NULL;
    END
    $fn$;

    CREATE TRIGGER users_count_insert AFTER INSERT ON users
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_counts_apply();
    CREATE TRIGGER users_count_update AFTER UPDATE ON users
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_counts_apply();
    CREATE TRIGGER users_count_delete AFTER DELETE ON users
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION user_counts_apply();

    CREATE FUNCTION activity_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      s smallint := floor(random() * ${sql.lit(COUNTER_SLOTS)})::smallint;
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

    CREATE TRIGGER activities_count_insert AFTER INSERT ON activities
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_counts_apply();
    CREATE TRIGGER activities_count_delete AFTER DELETE ON activities
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_counts_apply();
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const kind of FILTERED_KINDS) await sql`DROP INDEX ${sql.id(kindIndex(kind))}`.execute(db)
  await sql`
    CREATE INDEX activities_kind_created_at ON activities (kind, created_at DESC, id DESC);
    DROP INDEX activities_created_at;
    CREATE INDEX activities_created_at ON activities (created_at DESC, id DESC);
    ALTER TABLE activities RESET (autovacuum_vacuum_insert_scale_factor, autovacuum_vacuum_insert_threshold);
  `.execute(db)
  await sql`
    DROP TRIGGER users_search_text_activities ON users;
    DROP TRIGGER activities_search_text_insert ON activities;
    DROP TRIGGER activities_search_text_user ON activities;
    DROP FUNCTION users_refresh_activity_search_text();
    DROP FUNCTION activities_fill_search_text();
    ALTER TABLE activities DROP COLUMN search_text;
    ALTER TABLE users DROP COLUMN search_text;
    DROP FUNCTION activity_search_text(text, text, text, text);
    DROP TRIGGER activities_count_insert ON activities;
    DROP TRIGGER activities_count_delete ON activities;
    DROP TRIGGER users_count_insert ON users;
    DROP TRIGGER users_count_update ON users;
    DROP TRIGGER users_count_delete ON users;
    DROP FUNCTION activity_counts_apply();
    DROP FUNCTION user_counts_apply();
    DROP TABLE activity_counts, user_counts, pictures;
    DROP INDEX users_created_at, users_role_created_at, users_status_created_at, users_role_status_created_at,
      users_name_prefix, users_email_prefix;
  `.execute(db)
}
