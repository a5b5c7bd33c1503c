import { type Kysely, sql } from 'kysely'

/**
 * Deep pages of a search of everyone's activity (docs/decisions/0121): the trigram index of the
 * entries' search text becomes a GIN index of three columns: the entry's week (whole weeks since
 * Monday 1970-01-05, UTC), its kind and week as one key ("logged out 2968"), and the trigrams. One
 * index scan then finds the matches of one week, or of one activity filter in one week, without
 * reading the rest. A search reads the newest weeks one by one, newest first, until its page is
 * full (src/server/data/activity/activity-list.ts).
 *
 * `btree_gin` lets a GIN index hold the week and the key beside the trigrams; like `pg_trgm` it is
 * one of PostgreSQL's own extensions (trusted: a database owner may create it). A query on the
 * trigrams alone still uses this index, as it used the one it replaces. It holds two keys more per
 * entry (about 40 MB at ten million entries).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE EXTENSION IF NOT EXISTS btree_gin;
    CREATE INDEX activities_search_weekly ON activities USING gin (
      ((((created_at AT TIME ZONE 'UTC')::date) - DATE '1970-01-05') / 7),
      (kind || ' ' || (((((created_at AT TIME ZONE 'UTC')::date) - DATE '1970-01-05') / 7))::text),
      search_text gin_trgm_ops
    ) WITH (fastupdate = off);
    DROP INDEX activities_search_trgm;
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX activities_search_trgm ON activities USING gin (search_text gin_trgm_ops) WITH (fastupdate = off);
    DROP INDEX activities_search_weekly;
  `.execute(db)
}
