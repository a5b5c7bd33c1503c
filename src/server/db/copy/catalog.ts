/**
 * What `npm run db:copy` copies, read from PostgreSQL's catalog rather than listed by hand, so
 * that tables added by later migrations are copied too: every table of the `public` schema except
 * the migrator's own, its columns (generated ones are computed again by the target), the order
 * in which foreign keys allow them to be filled, and the sequences behind identity columns.
 */

/** A connection that runs a query and returns rows as objects: PGlite and node-postgres both do. */
export interface Queryable {
  query<T>(text: string, values?: unknown[]): Promise<{ rows: T[] }>
}

export interface Column {
  name: string
  /** As format_type() writes it, e.g. `timestamp with time zone`: text is cast back to this. */
  type: string
}

export interface Table {
  name: string
  columns: Column[]
}

/** Kysely's bookkeeping: the target gets its own when it is migrated. */
const MIGRATOR_TABLES = ['kysely_migration', 'kysely_migration_lock']

export const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`

export async function tablesInCopyOrder(db: Queryable): Promise<Table[]> {
  const { rows: tables } = await db.query<{ oid: number; name: string }>(
    `SELECT c.oid::int AS oid, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND NOT (c.relname = ANY($1::text[]))
     ORDER BY c.relname`,
    [MIGRATOR_TABLES],
  )
  const { rows: references } = await db.query<{ child: number; parent: number }>(
    `SELECT conrelid::int AS child, confrelid::int AS parent FROM pg_constraint
     WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND conrelid <> confrelid`,
  )
  const { rows: columns } = await db.query<{ table: number; name: string; type: string }>(
    `SELECT attrelid::int AS table, attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = ANY($1::oid[]) AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
     ORDER BY attrelid, attnum`,
    [tables.map((t) => t.oid)],
  )

  // Parents before children (Kahn's algorithm); a cycle of foreign keys cannot be filled in order.
  const ordered: Table[] = []
  const pending = new Map(tables.map((t) => [t.oid, t]))
  while (pending.size > 0) {
    const ready = [...pending.values()].filter((t) => !references.some((r) => r.child === t.oid && pending.has(r.parent)))
    if (ready.length === 0) {
      throw new Error(`The foreign keys of ${[...pending.values()].map((t) => t.name).join(', ')} form a cycle; db:copy cannot order them.`)
    }
    for (const table of ready) {
      pending.delete(table.oid)
      ordered.push({ name: table.name, columns: columns.filter((c) => c.table === table.oid).map(({ name, type }) => ({ name, type })) })
    }
  }
  return ordered
}

/** The `public` schema's sequences and where they stand (null: never used). */
export async function sequenceValues(db: Queryable): Promise<{ name: string; lastValue: string | null }[]> {
  const { rows } = await db.query<{ name: string; last_value: string | null }>(
    `SELECT sequencename AS name, last_value::text AS last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY sequencename`,
  )
  return rows.map((row) => ({ name: row.name, lastValue: row.last_value }))
}
