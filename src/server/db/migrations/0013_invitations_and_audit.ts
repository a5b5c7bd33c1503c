import { type Kysely, sql } from 'kysely'

/**
 * Invitations, the audit's actor and changes, and the dashboard's two new totals:
 *
 * - `one_time_tokens.purpose` admits `invitation`: an admin's invitation link is a one-time token
 *   like the others (256-bit, stored hashed, single-use, expiring);
 * - `activities.actor_name`: the name of whoever acted on someone else's account (an admin), as
 *   it was when they acted, so the entry still says who did it after a rename or a deletion;
 *   filled here for the entries written before;
 * - `activities.changes`: an admin edit's changed fields, `[{ field, from, to }]` (never a secret;
 *   a phone number is written as changed, without its values);
 * - `user_counts` also counts by whether the address is verified and whether two-factor is on, so
 *   the dashboard's "Unverified" and "Two-factor on" are sums of a few counter rows, like every
 *   other total (decision 0103). The counters are counted afresh here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE one_time_tokens DROP CONSTRAINT IF EXISTS one_time_tokens_purpose_check;
    ALTER TABLE one_time_tokens ADD CONSTRAINT one_time_tokens_purpose_check
      CHECK (purpose IN ('verify-email', 'reset-password', 'invitation'));

    ALTER TABLE activities ADD COLUMN actor_name text, ADD COLUMN changes jsonb;
    UPDATE activities a SET actor_name = u.name FROM users u
      WHERE u.id = a.actor_id AND a.user_id IS DISTINCT FROM a.actor_id;

    ALTER TABLE user_counts DROP CONSTRAINT user_counts_pkey;
    ALTER TABLE user_counts ADD COLUMN verified boolean NOT NULL DEFAULT true, ADD COLUMN mfa boolean NOT NULL DEFAULT false;
    DELETE FROM user_counts;
    INSERT INTO user_counts (role, status, verified, mfa, slot, n)
      SELECT role, status, email_verified_at IS NOT NULL, mfa_enabled, 0, count(*) FROM users
      GROUP BY role, status, email_verified_at IS NOT NULL, mfa_enabled;
    ALTER TABLE user_counts ADD PRIMARY KEY (role, status, verified, mfa, slot);
  `.execute(db)

  // The same function as before (one upsert per statement, rows in key order), by four keys.
  await sql`
    CREATE OR REPLACE FUNCTION user_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      s smallint := floor(random() * 8)::smallint;
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
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION user_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      s smallint := floor(random() * 8)::smallint;
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
    ALTER TABLE user_counts DROP CONSTRAINT user_counts_pkey;
    DELETE FROM user_counts;
    ALTER TABLE user_counts DROP COLUMN verified, DROP COLUMN mfa;
    INSERT INTO user_counts (role, status, slot, n) SELECT role, status, 0, count(*) FROM users GROUP BY role, status;
    ALTER TABLE user_counts ADD PRIMARY KEY (role, status, slot);
    ALTER TABLE activities DROP COLUMN changes, DROP COLUMN actor_name;
    DELETE FROM one_time_tokens WHERE purpose = 'invitation';
    ALTER TABLE one_time_tokens DROP CONSTRAINT one_time_tokens_purpose_check;
    ALTER TABLE one_time_tokens ADD CONSTRAINT one_time_tokens_purpose_check CHECK (purpose IN ('verify-email', 'reset-password'));
  `.execute(db)
}
