import { type Queryable, type Table, quoteIdentifier as q, sequenceValues, tablesInCopyOrder } from './catalog'

/**
 * Copies every row of every table from one database to another of the same schema, in one
 * transaction on the target: all or nothing (docs/decisions/0021).
 *
 * - Values travel as text and are cast back to their column's type: PostgreSQL's own text forms,
 *   as COPY uses them, so every type comes across exactly (bytea as hex, times with their offset).
 * - The target's user triggers are off while rows arrive, so the rows arrive as they were: the
 *   trigger-kept counters (`user_counts`, `activity_counts`, `sign_ups_by_day`) are copied, not
 *   counted a second time, and the search text of activity entries is not written again. Foreign
 *   keys stay on: tables are filled parents first.
 * - Identity and sequence values carry over, so new rows continue where the old ones stopped.
 * - Then every table is compared on both sides: its row count and a checksum of its rows.
 */
const BATCH_ROWS = 500

export interface CopiedTable {
  name: string
  rows: number
}

/** Session settings under which both sides write values as the same text. */
const SAME_TEXT = ["SET TIME ZONE 'UTC'", "SET DateStyle = 'ISO, MDY'", "SET IntervalStyle = 'postgres'", "SET bytea_output = 'hex'", 'SET extra_float_digits = 3']

export async function copyDatabase(source: Queryable, target: Queryable, progress: (table: string, rows: number) => void = () => {}): Promise<CopiedTable[]> {
  for (const setting of SAME_TEXT) {
    await source.query(setting)
    await target.query(setting)
  }
  await source.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
  await target.query('BEGIN')
  try {
    const tables = await tablesInCopyOrder(source)
    assertSameTables(tables, await tablesInCopyOrder(target))
    for (const table of tables) await target.query(`ALTER TABLE public.${q(table.name)} DISABLE TRIGGER USER`)
    for (const table of tables) progress(table.name, await copyTable(source, target, table))
    for (const sequence of await sequenceValues(source)) {
      if (sequence.lastValue !== null) await target.query(`SELECT setval($1::regclass, $2::bigint, true)`, [`public.${q(sequence.name)}`, sequence.lastValue])
    }
    for (const table of tables) await target.query(`ALTER TABLE public.${q(table.name)} ENABLE TRIGGER USER`)
    const copied = await verify(source, target, tables)
    await target.query('COMMIT')
    return copied
  } catch (error) {
    await target.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    await source.query('COMMIT').catch(() => {})
  }
}

function assertSameTables(source: Table[], target: Table[]): void {
  const shape = (tables: Table[]) => new Map(tables.map((t) => [t.name, t.columns.map((c) => `${c.name} ${c.type}`).join(', ')]))
  const theirs = shape(target)
  for (const [name, columns] of shape(source)) {
    if (theirs.get(name) !== columns) {
      throw new Error(`After migrating, the target's table "${name}" does not match the embedded database's (${columns}); nothing was copied.`)
    }
  }
}

async function copyTable(source: Queryable, target: Queryable, table: Table): Promise<number> {
  const { columns } = table
  if (columns.length === 0) return 0
  const aliases = columns.map((_, i) => `c${i}`)
  await source.query(`DECLARE copy_rows NO SCROLL CURSOR FOR SELECT ${columns.map((c, i) => `${q(c.name)}::text AS c${i}`).join(', ')} FROM public.${q(table.name)}`)
  const insert =
    `INSERT INTO public.${q(table.name)} (${columns.map((c) => q(c.name)).join(', ')}) OVERRIDING SYSTEM VALUE ` +
    `SELECT ${columns.map((c, i) => `c${i}::${c.type}`).join(', ')} FROM unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${aliases.join(', ')})`
  let copied = 0
  for (;;) {
    const { rows } = await source.query<Record<string, string | null>>(`FETCH ${BATCH_ROWS} FROM copy_rows`)
    if (rows.length === 0) break
    await target.query(
      insert,
      aliases.map((alias) => rows.map((row) => row[alias] ?? null)),
    )
    copied += rows.length
  }
  await source.query('CLOSE copy_rows')
  return copied
}

/** Row count and an order-free checksum of each table's rows, compared on both sides. */
async function verify(source: Queryable, target: Queryable, tables: Table[]): Promise<CopiedTable[]> {
  const summary = (db: Queryable, table: Table) =>
    db
      .query<{ rows: string; checksum: string }>(
        `SELECT count(*)::text AS rows, coalesce(sum(hashtext(t::text)::bigint), 0)::text AS checksum FROM public.${q(table.name)} AS t`,
      )
      .then((result) => result.rows[0]!)
  const copied: CopiedTable[] = []
  for (const table of tables) {
    const [from, to] = [await summary(source, table), await summary(target, table)]
    if (from.rows !== to.rows) throw new Error(`Table "${table.name}": ${from.rows} rows in the embedded database, ${to.rows} in the target; nothing was copied.`)
    if (from.checksum !== to.checksum) throw new Error(`Table "${table.name}": the rows differ after copying; nothing was copied.`)
    copied.push({ name: table.name, rows: Number(from.rows) })
  }
  return copied
}
