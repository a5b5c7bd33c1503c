import { type Kysely, sql } from 'kysely'

/**
 * The admin's user search matches anywhere in the name or e-mail for every term, short ones
 * included. Terms with three letters or digits in a row use the trigram
 * index; shorter ones ("jo", "é", ".o", "a s") have no trigram to look up. For them, every user's
 * search text is indexed by its single characters and its pairs of characters: a text can contain
 * a term only if it has all the term's pairs (or its one character), which the index answers at
 * once even for a rare pair. The prefix indexes that short terms used before go
 * (docs/decisions/0102).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- Every character of a text, and every pair of neighbouring characters (repeats and all:
    -- GIN keeps each key once). About 20 µs for a user's search text: COST says so, or the planner
    -- would compute it for every row of a walk instead of asking the index. PARALLEL RESTRICTED
    -- keeps a rare term's few matches from starting parallel workers (several ms each).
    CREATE FUNCTION search_grams(t text) RETURNS text[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL RESTRICTED COST 1000
      RETURN string_to_array(t, NULL) || ARRAY(SELECT substr(t, i, 2) FROM generate_series(1, length(t) - 1) AS i);

    -- The pieces a text must have to contain a term: its pairs, or its one character.
    CREATE FUNCTION search_term_grams(t text) RETURNS text[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN CASE WHEN length(t) < 2 THEN string_to_array(t, NULL)
        ELSE ARRAY(SELECT DISTINCT substr(t, i, 2) FROM generate_series(1, length(t) - 1) AS i) END;

    CREATE INDEX users_search_grams ON users USING gin (search_grams(search_text)) WITH (fastupdate = off);
    DROP INDEX users_name_prefix;
    DROP INDEX users_email_prefix;
  `.execute(db)
  // The planner judges a pair rare or common from the index's statistics, which exist only once
  // the table has been analysed (autovacuum might not get to it for a long while).
  await sql`ANALYZE users`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX users_name_prefix ON users (lower(name) text_pattern_ops);
    CREATE INDEX users_email_prefix ON users (email text_pattern_ops);
    DROP INDEX users_search_grams;
    DROP FUNCTION search_term_grams(text);
    DROP FUNCTION search_grams(text);
  `.execute(db)
}
