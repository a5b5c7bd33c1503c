import { type CompiledQuery, type Kysely, type RawBuilder, sql } from 'kysely'
import type { Role, Status } from '~shared/constants'
import type { SortOrder, UserExportQuery, UserSort } from '~shared/schemas/lists'
import type { Database, DatabaseKind } from '~server/db/types'
import { kindAndRange } from './activity-list'
import { parseSearch } from './search'
import { filteredUsers, SORT_KEYS, userOrder } from './user-list'

/**
 * The rows of the CSV exports, read from the database a batch at a time, so that memory stays
 * flat whatever the count (docs/decisions/0111):
 *
 * - on PostgreSQL, one query through a server-side cursor (pg-cursor), in a read-only
 *   REPEATABLE READ transaction: one snapshot for the whole file, the statement timeout lifted for
 *   it alone, the rows fetched BATCH at a time as the client takes them;
 * - on PGlite (one connection for everything), batches read by keyset: each the next BATCH rows
 *   after the last one sent, in the list's order, so that other requests run between batches.
 *
 * Both read in the list's order, with its filters, and stop reading when the consumer stops.
 */
export const EXPORT_BATCH = 1_000

/** Times as the database writes them in UTC (`utcText`), to be written out by `isoTime`. */
export interface UserExportRow {
  id: string
  name: string
  email: string
  phone: string | null
  role: Role
  status: Status
  email_verified: boolean
  created_at: string
  updated_at: string
  last_sign_in_at: string | null
}

export interface ActivityExportRow {
  id: string
  created_at: string
  activity: string
  details: string | null
  ip_address: string | null
  user_id: string | null
  user_name: string | null
  user_email: string | null
  user_role: Role | null
}

/**
 * A timestamp as PostgreSQL writes a UTC time (`2026-11-24 08:05:03.12`: ISO DateStyle, which
 * node-postgres needs anyway; up to six digits of a second, trailing zeros dropped), turned into
 * the API's form by `isoTime`. Not parsed into a Date and written out again (most of an export's
 * CPU after the CSV itself), and not `to_char`, which cost PostgreSQL more than the rest of the
 * row and doubled the export's time at the database (docs/decisions/0114).
 */
const utcText = (column: RawBuilder<unknown>) => sql<string>`(${column} AT TIME ZONE 'UTC')::text`

/** `utcText`'s form as `toISOString` writes it: a T, milliseconds (cut, not rounded, as a Date's), a Z. */
export function isoTime(text: string): string {
  const milliseconds = text.length > 20 ? text.slice(20, 23).padEnd(3, '0') : '000'
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${milliseconds}Z`
}

/** Each sort key's type, for the keyset bound sent back as text (exact to the microsecond). */
const KEY_TYPES: Record<UserSort, RawBuilder<unknown>> = {
  name: sql`text`,
  email: sql`text`,
  role: sql`text`,
  status: sql`text`,
  createdAt: sql`timestamptz`,
  lastSignInAt: sql`timestamptz`,
}

type Batch<R> = (after: R | undefined) => CompiledQuery<R>

export async function* exportUsers(
  db: Kysely<Database>,
  kind: DatabaseKind,
  filters: UserExportQuery & { now: Date },
): AsyncGenerator<UserExportRow[]> {
  const { sort, order } = filters as { sort: UserSort; order: SortOrder }
  const rows = (await filteredUsers(db, filters))
    .select(['id', 'name', 'email', 'phone', 'role', 'status'])
    .select([
      sql<boolean>`email_verified_at IS NOT NULL`.as('email_verified'),
      utcText(sql`created_at`).as('created_at'),
      utcText(sql`updated_at`).as('updated_at'),
      utcText(sql`last_sign_in_at`).as('last_sign_in_at'),
    ])
    .orderBy(userOrder(sort, order))
  // The sort key, sent back as the next batch's bound, only where batches are read by keyset.
  const base = rows.select(sql<string>`(${SORT_KEYS[sort]})::text`.as('sort_key'))
  const whole = rows.compile() as CompiledQuery<UserExportRow & { sort_key: string }>
  const batch: Batch<UserExportRow & { sort_key: string }> = (after) => {
    if (!after) return base.limit(EXPORT_BATCH).compile() as CompiledQuery<UserExportRow & { sort_key: string }>
    const past = order === 'asc' ? sql`>` : sql`<`
    const key = sql`${after.sort_key}::${KEY_TYPES[sort]}`
    const beyond =
      sort === 'email' ? sql<boolean>`email ${past} ${key}` : sql<boolean>`(${SORT_KEYS[sort]}, id) ${past} (${key}, ${after.id}::uuid)`
    return base.where(beyond).limit(EXPORT_BATCH).compile() as CompiledQuery<UserExportRow & { sort_key: string }>
  }
  yield* readRows(db, kind, whole, batch)
}

export interface ActivityExportFilters {
  search?: string | undefined
  activity?: string | undefined
  from?: Date | undefined
  to?: Date | undefined
}

/**
 * Everyone's entries, newest first, with the activity filter, the date range and the search. A
 * search matches anywhere in all the entries here (the list looks for a short term among the
 * newest ones only: it must answer at once, an export may take its time).
 */
export async function* exportActivities(db: Kysely<Database>, kind: DatabaseKind, filters: ActivityExportFilters): AsyncGenerator<ActivityExportRow[]> {
  const conditions = kindAndRange(filters)
  const term = parseSearch(filters.search)
  if (term) conditions.push(sql`strpos(a.search_text, lower(${term.text})) > 0`)
  const select = (extra: RawBuilder<unknown>[], limit: RawBuilder<unknown>, keyset: boolean) => {
    const all = [...conditions, ...extra]
    return sql<ActivityExportRow & { sort_key: string }>`
      SELECT a.id::text AS id, ${utcText(sql`a.created_at`)} AS created_at, a.activity, a.details, a.ip_address,
        ${keyset ? sql`a.created_at::text AS sort_key,` : sql``} u.id AS user_id, u.name AS user_name, u.email AS user_email, u.role AS user_role
      FROM activities a LEFT JOIN users u ON u.id = a.user_id
      WHERE ${all.length > 0 ? sql.join(all, sql` AND `) : sql`TRUE`}
      ORDER BY a.created_at DESC, a.id DESC ${limit}`.compile(db)
  }
  const batch: Batch<ActivityExportRow & { sort_key: string }> = (after) =>
    select(after ? [sql`(a.created_at, a.id) < (${after.sort_key}::timestamptz, ${after.id}::bigint)`] : [], sql`LIMIT ${EXPORT_BATCH}`, true)
  yield* readRows(db, kind, select([], sql``, false), batch)
}

async function* readRows<R>(db: Kysely<Database>, kind: DatabaseKind, whole: CompiledQuery<R>, batch: Batch<R>): AsyncGenerator<R[]> {
  if (kind === 'postgres') {
    yield* throughCursor(db, whole)
    return
  }
  let after: R | undefined
  for (;;) {
    const { rows } = await db.executeQuery(batch(after))
    if (rows.length === 0) return
    yield rows
    if (rows.length < EXPORT_BATCH) return
    after = rows[rows.length - 1]
  }
}

async function* throughCursor<R>(db: Kysely<Database>, query: CompiledQuery<R>): AsyncGenerator<R[]> {
  const trx = await db.startTransaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute()
  let finished = false
  try {
    await sql`SET LOCAL statement_timeout = 0`.execute(trx)
    // Each fetch is one batch (EXPORT_BATCH rows, fewer at the end), handed on as it came.
    for await (const result of trx.getExecutor().stream(query, EXPORT_BATCH)) yield result.rows as R[]
    finished = true
  } finally {
    // Nothing was written: committing or rolling back ends the snapshot alike.
    await (finished ? trx.commit() : trx.rollback()).execute()
  }
}
