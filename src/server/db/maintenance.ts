import { type Kysely, sql } from 'kysely'
import type { Database } from './types'

/**
 * What PostgreSQL's autovacuum does, for the embedded database (decision 0406). PGlite runs
 * PostgreSQL as one process with no background workers: nothing vacuums or analyses its tables.
 * Without this, the space of deleted and updated rows is never reused (a table of short-lived
 * rows, such as the provider's tokens, grows for ever) and the planner never learns a table's
 * size or its values.
 *
 * Run by housekeeping every hour, on PGlite only. Each table is vacuumed on its own, so that
 * requests waiting for the one connection get in between tables; a vacuum that finds nothing to
 * do reads only the pages changed since the last. A table is analysed when it has rows and no
 * statistics yet, or when its row count has moved by more than autovacuum's own threshold (50
 * rows and a tenth) since this process last analysed it or first saw it: analysing reads samples of every
 * index too, about 4 s for a table of 100,000 accounts here, so it is not done every hour for
 * nothing. PGlite keeps no activity counters (`pg_stat_user_tables` stays at zero), so the row
 * count that vacuum records stands in for them.
 */
export class EmbeddedDatabaseMaintenance {
  /** Row count by table when this process last analysed it, or first saw it analysed. */
  private readonly analysedAt = new Map<string, number>()

  constructor(private readonly db: Kysely<Database>) {}

  async run(): Promise<{ vacuumed: string[]; analysed: string[] }> {
    const tables = await this.tables()
    for (const { name } of tables) await sql`VACUUM ${sql.table(name)}`.execute(this.db)
    const analysed: string[] = []
    for (const { name, rows, hasStatistics } of await this.tables()) {
      const previous = this.analysedAt.get(name)
      const due = rows > 0 && (!hasStatistics || (previous !== undefined && Math.abs(rows - previous) > 50 + previous / 10))
      if (due) {
        await sql`ANALYZE ${sql.table(name)}`.execute(this.db)
        analysed.push(name)
      }
      if (due || previous === undefined) this.analysedAt.set(name, rows)
    }
    return { vacuumed: tables.map((table) => table.name), analysed }
  }

  /** The product's tables, with the row count the last vacuum or analysis recorded. */
  private async tables(): Promise<{ name: string; rows: number; hasStatistics: boolean }[]> {
    const { rows } = await sql<{ name: string; rows: number; has_statistics: boolean }>`
      SELECT c.relname AS name, greatest(c.reltuples, 0)::float8 AS rows,
             EXISTS (SELECT 1 FROM pg_statistic s WHERE s.starelid = c.oid) AS has_statistics
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind = 'r'
       ORDER BY c.relname`.execute(this.db)
    return rows.map((row) => ({ name: row.name, rows: Number(row.rows), hasStatistics: row.has_statistics }))
  }
}
