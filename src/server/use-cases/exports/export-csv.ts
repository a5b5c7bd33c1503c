import type { ActivityExportQuery, UserExportQuery } from '~shared/schemas/lists'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { type ActivityExportRow, exportActivities, exportUsers, isoTime, type UserExportRow } from '~server/data/exports/export-rows'
import type { ActingApplication } from '~server/auth/service-credentials'

/**
 * The admin's CSV exports of the user list and of everyone's activity log (contract section 7):
 * UTF-8 with a byte-order mark (so that spreadsheet programs read accents and non-Latin names
 * right), a header row, RFC 4180 quoting with CRLF line ends, and no cell that a spreadsheet would
 * take for a formula. The file is produced as the rows are read (data/exports/export-rows.ts), a batch
 * at a time: memory stays flat whatever its size.
 *
 * Each export writes its activity entry ("Exported users", "Exported activity logs") naming the
 * filters and the number of rows, once the file has been sent, or as far as it went when the
 * download stopped: an export cannot escape the log by being cut short.
 */
export const USER_COLUMNS = ['id', 'name', 'email', 'phone', 'role', 'status', 'emailVerified', 'createdAt', 'updatedAt', 'lastSignInAt'] as const
export const ACTIVITY_COLUMNS = [
  'id',
  'createdAt',
  'activity',
  'details',
  'ipAddress',
  'userId',
  'userName',
  'userEmail',
  'userRole',
  'actorType',
  'actorId',
  'actorName',
] as const

export interface CsvExport {
  filename: string
  /** The file, piece by piece; ending it early (the client went away) still writes the entry. */
  body: AsyncGenerator<string>
}

/** Who exports: an admin, or a service application (`actorId` null). */
interface Actor {
  actorId: string | null
  application?: ActingApplication
  ip: string
}

/** A cell's start that a spreadsheet reads as a formula (or as a formula's start). */
const FORMULA_START = /^[=+\-@\t\r]/
/** What makes a field need quotes (RFC 4180). */
const NEEDS_QUOTES = /[",\r\n]/

/** A cell a spreadsheet would read as a formula (or as a formula's start) gets a leading quote. */
export function guardCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value
}

const BOM = '\uFEFF'

/**
 * RFC 4180: a field holding a comma, a quote, a carriage return or a line feed is quoted, its
 * quotes doubled; lines end with CRLF. Written here rather than with csv-stringify, which left a
 * field with a bare line feed unquoted under CRLF line ends (a spreadsheet splits that row) and
 * wrote a quarter as many rows per second (docs/decisions/0111).
 */
function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

export function csvLines(records: string[][]): string {
  let out = ''
  for (const record of records) out += `${record.map(csvField).join(',')}\r\n`
  return out
}

/**
 * A cell of free text (a name, an e-mail, details): guarded, then quoted if need be. The other
 * columns (ids, roles, statuses, booleans, times) can hold none of the characters either looks
 * for, and are written as they are: one line per row, built without arrays (docs/decisions/0114).
 */
function text(value: string | null): string {
  if (value === null || value === '') return ''
  // One test for the few cells that need the guard or quotes; the rest are written as they are.
  return NEEDS_CARE.test(value) ? csvField(guardCell(value)) : value
}

/** What `guardCell` or `csvField` would change. */
const NEEDS_CARE = new RegExp(`${FORMULA_START.source}|${NEEDS_QUOTES.source}`)

const day = (now: Date) => now.toISOString().slice(0, 10)

export function exportUsersCsv(ctx: AppContext, actor: Actor, query: UserExportQuery): CsvExport {
  const now = ctx.clock()
  const line = (u: UserExportRow) =>
    `${u.id},${text(u.name)},${text(u.email)},${text(u.phone)},${u.role},${u.status},${u.email_verified},${isoTime(u.created_at)},${isoTime(u.updated_at)},${u.last_sign_in_at === null ? '' : isoTime(u.last_sign_in_at)}\r\n`
  return {
    filename: `users-${day(now)}.csv`,
    body: csvBody(ctx, actor, 'Exported users', describeFilters(query), USER_COLUMNS, exportUsers(ctx, { ...query, now }), line),
  }
}

export function exportActivitiesCsv(ctx: AppContext, actor: Actor, query: ActivityExportQuery): CsvExport {
  const line = (a: ActivityExportRow) =>
    `${a.id},${isoTime(a.created_at)},${text(a.activity)},${text(a.details)},${text(a.ip_address)},${a.user_id ?? ''},${text(a.user_name)},${text(a.user_email)},${a.user_role ?? ''},${actorOf(a)}\r\n`
  return {
    filename: `activity-logs-${day(ctx.clock())}.csv`,
    body: csvBody(ctx, actor, 'Exported activity logs', describeFilters(query), ACTIVITY_COLUMNS, exportActivities(ctx, query), line),
  }
}

/**
 * The actor's three cells, as the API's `actor` (decision 0503): `application`, its client id and
 * its name as it was then; `user`, the admin who acted on someone else's account; or none (an
 * entry of one's own).
 */
function actorOf(a: ActivityExportRow): string {
  if (a.actor_name === null) return ',,'
  if (a.actor_application_id) return `application,${text(a.actor_application_id)},${text(a.actor_name)}`
  return `user,${a.actor_id ?? ''},${text(a.actor_name)}`
}

async function* csvBody<R>(
  ctx: AppContext,
  actor: Actor,
  activity: string,
  filters: string,
  columns: readonly string[],
  batches: AsyncGenerator<R[]>,
  line: (row: R) => string,
): AsyncGenerator<string> {
  let count = 0
  let complete = false
  try {
    yield BOM + csvLines([[...columns]])
    for await (const rows of batches) {
      let lines = ''
      for (const row of rows) lines += line(row)
      yield lines
      count += rows.length
    }
    complete = true
  } finally {
    await batches.return(undefined)
    const details = `${filters}; rows: ${count}${complete ? '' : ' (download interrupted)'}`
    try {
      await commitChange(ctx, (c) =>
        c.record({ userId: actor.actorId, actorId: actor.actorId, actorApplication: actor.application, kind: 'other', activity, details, ip: actor.ip }),
      )
    } catch (error) {
      ctx.log.error({ err: error }, `could not record "${activity}"`)
    }
  }
}

/** "filters: role CLIENT, verified true, sort name asc" (or "filters: none"), never a secret. */
function describeFilters(query: Record<string, unknown>): string {
  const parts = Object.entries(query)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key} ${value instanceof Date ? value.toISOString() : String(value)}`)
  return `filters: ${parts.length > 0 ? parts.join(', ') : 'none'}`
}
