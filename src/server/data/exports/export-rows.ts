import { type CompiledQuery, type RawBuilder, sql } from 'kysely'
import type pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'
import type { Role, Status } from '~shared/constants'
import type { SortOrder, UserExportQuery, UserSort } from '~shared/schemas/lists'
import type { DatabaseKind, Db } from '~server/db/types'
import { kindAndRange } from '~server/data/activity/activity-list'
import { parseSearch } from '~server/data/search'
import { filteredUsers, SORT_KEYS, userOrder } from '~server/data/users/user-list'

/**
 * The rows of the CSV exports, read from the database a batch at a time, so that memory stays
 * flat whatever the count (docs/decisions/0111):
 *
 * - on PostgreSQL, one `COPY (query) TO STDOUT` in its text format (pg-copy-streams), in a
 *   read-only REPEATABLE READ transaction: one snapshot for the whole file, the statement timeout
 *   lifted for it alone, the rows streamed as the client takes them (the socket is paused while
 *   the download is behind), turned back into rows and handed on as each piece of the stream is
 *   read (at most BATCH at a time). COPY sends rows at twice the pace a cursor's fetches did
 *   (docs/decisions/0120);
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
  /** Who acted on the entry's account, when not its owner: an admin (`actor_id`) or a service application. */
  actor_id: string | null
  actor_application_id: string | null
  actor_name: string | null
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
  // Most times carry all six digits of a second: one cut of the text.
  if (text.length >= 23) return `${text.slice(0, 10)}T${text.slice(11, 23)}Z`
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

/** Where an export reads from: the database, and on PostgreSQL its pool (COPY is not Kysely's). */
export interface ExportSource {
  db: Db
  dbKind: DatabaseKind
  pgPool?: pg.Pool | undefined
}

export async function* exportUsers(source: ExportSource, filters: UserExportQuery & { now: Date }): AsyncGenerator<UserExportRow[]> {
  const { db } = source
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
    const beyond = sort === 'email' ? sql<boolean>`email ${past} ${key}` : sql<boolean>`(${SORT_KEYS[sort]}, id) ${past} (${key}, ${after.id}::uuid)`
    return base.where(beyond).limit(EXPORT_BATCH).compile() as CompiledQuery<UserExportRow & { sort_key: string }>
  }
  // COPY's text fields in the select's order.
  const fromCopy = (f: (string | null)[]): UserExportRow => ({
    id: f[0]!,
    name: f[1]!,
    email: f[2]!,
    phone: f[3]!,
    role: f[4] as Role,
    status: f[5] as Status,
    email_verified: f[6] === 't',
    created_at: f[7]!,
    updated_at: f[8]!,
    last_sign_in_at: f[9]!,
  })
  yield* readRows(source, whole, batch, fromCopy)
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
export async function* exportActivities(source: ExportSource, filters: ActivityExportFilters): AsyncGenerator<ActivityExportRow[]> {
  const { db } = source
  const conditions = kindAndRange(filters)
  const term = parseSearch(filters.search)
  if (term) conditions.push(sql`strpos(a.search_text, lower(${term.text})) > 0`)
  const select = (extra: RawBuilder<unknown>[], limit: RawBuilder<unknown>, keyset: boolean) => {
    const all = [...conditions, ...extra]
    return sql<ActivityExportRow & { sort_key: string }>`
      SELECT a.id::text AS id, ${utcText(sql`a.created_at`)} AS created_at, a.activity, a.details, a.ip_address,
        ${keyset ? sql`a.created_at::text AS sort_key,` : sql``} u.id AS user_id, u.name AS user_name, u.email AS user_email, u.role AS user_role,
        a.actor_id::text AS actor_id, a.actor_application_id, a.actor_name
      FROM activities a LEFT JOIN users u ON u.id = a.user_id
      WHERE ${all.length > 0 ? sql.join(all, sql` AND `) : sql`TRUE`}
      ORDER BY a.created_at DESC, a.id DESC ${limit}`.compile(db)
  }
  const batch: Batch<ActivityExportRow & { sort_key: string }> = (after) =>
    select(after ? [sql`(a.created_at, a.id) < (${after.sort_key}::timestamptz, ${after.id}::bigint)`] : [], sql`LIMIT ${EXPORT_BATCH}`, true)
  const fromCopy = (f: (string | null)[]): ActivityExportRow => ({
    id: f[0]!,
    created_at: f[1]!,
    activity: f[2]!,
    details: f[3]!,
    ip_address: f[4]!,
    user_id: f[5]!,
    user_name: f[6]!,
    user_email: f[7]!,
    user_role: f[8] as Role | null,
    actor_id: f[9]!,
    actor_application_id: f[10]!,
    actor_name: f[11]!,
  })
  yield* readRows(source, select([], sql``, false), batch, fromCopy)
}

async function* readRows<R>(
  source: ExportSource,
  whole: CompiledQuery<unknown>,
  batch: Batch<R & { sort_key: string }>,
  fromCopy: (fields: (string | null)[]) => R,
): AsyncGenerator<R[]> {
  if (source.dbKind === 'postgres' && source.pgPool) {
    yield* throughCopy(source.pgPool, whole, fromCopy)
    return
  }
  let after: (R & { sort_key: string }) | undefined
  for (;;) {
    const { rows } = await source.db.executeQuery(batch(after))
    if (rows.length === 0) return
    yield rows
    if (rows.length < EXPORT_BATCH) return
    after = rows[rows.length - 1]
  }
}

async function* throughCopy<R>(pool: pg.Pool, query: CompiledQuery<unknown>, fromCopy: (fields: (string | null)[]) => R): AsyncGenerator<R[]> {
  const client = await pool.connect()
  const copy = copyTo(`COPY (${withValues(client, query)}) TO STDOUT`)
  let done = false
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    await client.query('SET LOCAL statement_timeout = 0')
    let rest: Buffer | undefined
    for await (const chunk of client.query(copy) as AsyncIterable<Buffer>) {
      const data = rest ? Buffer.concat([rest, chunk]) : chunk
      // A row ends with a line feed, which COPY's text format escapes inside a value and which is
      // never part of a longer UTF-8 character: the rows received whole are decoded, the rest kept.
      const end = data.lastIndexOf(0x0a)
      rest = end + 1 < data.length ? data.subarray(end + 1) : undefined
      if (end < 0) continue
      // What this piece of the stream held is handed on now, not kept while the next one arrives:
      // rows that lived on across reads were promoted to the old generation, and the server's
      // memory grew by that garbage until a full collection.
      let rows: R[] = []
      for (const line of data.toString('utf8', 0, end).split('\n')) {
        rows.push(fromCopy(copyFields(line)))
        if (rows.length === EXPORT_BATCH) {
          yield rows
          rows = []
        }
      }
      if (rows.length > 0) yield rows
    }
    if (rest) throw new Error('COPY ended within a row')
    await client.query('COMMIT')
    done = true
  } finally {
    // Stopped early (the client went away) or failed: the connection is in the middle of a COPY,
    // which only ending the connection stops. The pool makes another when one is needed.
    copy.destroy()
    client.release(done ? undefined : new Error('export stopped'))
  }
}

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' }

/** One row of COPY's text format: fields split by tabs, `\N` for NULL, backslash escapes. */
export function copyFields(line: string): (string | null)[] {
  const fields: (string | null)[] = line.split('\t')
  // Most lines hold no backslash but those of `\N`: only their fields are looked at again.
  if (!line.includes('\\')) return fields
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!
    if (field === '\\N') fields[i] = null
    else if (field.includes('\\')) fields[i] = field.replace(/\\(.)/g, (_, c: string) => ESCAPES[c] ?? c)
  }
  return fields
}

/**
 * The query with its values written in as literals, quoted by node-postgres (`escapeLiteral`):
 * COPY takes no parameters. The values are the export's filters (a search term, times, roles).
 */
export function withValues(client: Pick<pg.ClientBase, 'escapeLiteral'>, query: CompiledQuery<unknown>): string {
  return query.sql.replace(/\$(\d+)/g, (_, index: string) => {
    const value = query.parameters[Number(index) - 1]
    if (value === null || value === undefined) return 'NULL'
    if (value instanceof Date) return client.escapeLiteral(value.toISOString())
    if (typeof value === 'number' && Number.isFinite(value)) return String(value)
    if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE'
    if (typeof value === 'string') return client.escapeLiteral(value)
    throw new Error(`an export's query has a value of type ${typeof value}`)
  })
}
