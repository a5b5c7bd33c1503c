import { sql } from 'kysely'

/**
 * The columns of a joined table in a statement that claims one row and reads what it names in the
 * same round trip (a sign-in's claims, a session's start): each named `<prefix>_<column>`, so that
 * tables with columns of the same name do not clash in the row, and read back by `unprefixed`.
 */
export function prefixedColumns(alias: string, columns: readonly string[], prefix: string) {
  return sql.join(columns.map((column) => sql`${sql.ref(`${alias}.${column}`)} AS ${sql.id(`${prefix}_${column}`)}`))
}

/** The joined columns of a row under their own names, or undefined when the join found none (`present` is null). */
export function unprefixed<T>(row: Record<string, unknown>, columns: readonly string[], prefix: string, present = 'id'): T | undefined {
  const mark = row[`${prefix}_${present}`]
  if (mark === null || mark === undefined) return undefined
  const found: Record<string, unknown> = {}
  for (const column of columns) found[column] = row[`${prefix}_${column}`]
  return found as T
}
