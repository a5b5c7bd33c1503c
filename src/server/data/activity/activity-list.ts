import { type RawBuilder, sql } from 'kysely'
import type { Role } from '~shared/constants'
import { type ActivityEntry, type FieldChange, fieldChangeSchema } from '~shared/schemas/lists'
import type { Db } from '~server/db/types'
import { EXACT_COUNT_CAP, cappedCount, countActivities, plannerEstimate } from '~server/data/counts'
import { parseSearch } from '~server/data/search'
import { pictureUrl } from '~server/data/users/users'

/**
 * Activity lists, newest first: everyone's (the staff log) or one user's own (entries about them
 * and entries they made, such as an admin's edits of others). A search matches the activity text,
 * its details, and the name and e-mail of the user it is about, case-insensitively: all four are
 * kept, in lower case, in the entry's `search_text` (migration 0002), on a trigram index.
 *
 * Searching everyone's ten million entries, the planner's estimate of how common the term is
 * decides between three ways to the newest matches (decisions 0104 and 0121): reading all its
 * matches through the trigram index (rare terms), walking newest first and testing each entry
 * until the page is full (terms met soon), or reading the matches week by week, newest week
 * first, through the index of weeks and trigrams (deep pages, and terms in between). The total is
 * exact when all matches were read (up to the cap) or the search reached the oldest entry;
 * otherwise it is the planner's estimate. A term
 * too short for trigrams is looked for in the newest SHORT_SEARCH_WINDOW entries only. One user's
 * own entries are few enough to search in one go.
 */
export const SHORT_SEARCH_WINDOW = 10_000

export interface ActivityListInput {
  page: number
  limit: number
  search?: string | undefined
  /** The filter value, equal to the entries' `kind`. */
  activity?: string | undefined
  /** Only this user's own entries. */
  ownerId?: string | undefined
  /** Entries at or after this moment. */
  from?: Date | undefined
  /** Entries at or before this moment. */
  to?: Date | undefined
}

/** The conditions of the activity filter and the date range, on `activities a`. */
export function kindAndRange(input: Pick<ActivityListInput, 'activity' | 'from' | 'to'>): RawBuilder<unknown>[] {
  const conditions: RawBuilder<unknown>[] = []
  if (input.activity) conditions.push(sql`a.kind = ${input.activity}`)
  if (input.from) conditions.push(sql`a.created_at >= ${input.from}`)
  if (input.to) conditions.push(sql`a.created_at <= ${input.to}`)
  return conditions
}

export interface ActivityRow {
  id: string
  activity: string
  details: string | null
  ip_address: string | null
  created_at: Date
  user_id: string | null
  user_name: string | null
  user_email: string | null
  user_role: Role | null
  user_picture_id: string | null
  actor_id: string | null
  actor_name: string | null
  actor_application_id: string | null
  changes: unknown
}

const columns = sql`a.id, a.activity, a.details, a.ip_address, a.created_at, a.actor_id, a.actor_name, a.actor_application_id, a.changes,
  u.id AS user_id, u.name AS user_name, u.email AS user_email, u.role AS user_role, u.picture_id AS user_picture_id`
const withUser = sql`FROM activities a LEFT JOIN users u ON u.id = a.user_id`
const newestFirst = sql`ORDER BY a.created_at DESC, a.id DESC`
const all = (conditions: RawBuilder<unknown>[]) => (conditions.length > 0 ? sql.join(conditions, sql` AND `) : sql`TRUE`)

export async function listActivities(db: Db, input: ActivityListInput): Promise<{ rows: ActivityRow[]; total: number }> {
  const term = parseSearch(input.search)
  const offset = (input.page - 1) * input.limit
  const page = sql`LIMIT ${input.limit} OFFSET ${offset}`
  const kind = kindAndRange(input)
  const ranged = input.from !== undefined || input.to !== undefined
  const conditions: RawBuilder<unknown>[] = [...kind]
  if (term) conditions.push(sql`a.search_text LIKE lower(${term.kind === 'substring' ? term.pattern : `%${term.escaped}%`})`)

  if (input.ownerId || !term) {
    if (input.ownerId) conditions.push(sql`(a.user_id = ${input.ownerId} OR a.actor_id = ${input.ownerId})`)
    const rows = await pageOf(db, conditions, page)
    const total =
      input.ownerId || ranged ? await cappedCount(db, sql`SELECT a.id FROM activities a WHERE ${all(conditions)}`.compile(db)) : await countActivities(db, input.activity)
    return { rows, total }
  }

  if (term.kind === 'short') {
    // Among the newest SHORT_SEARCH_WINDOW entries only: the window starts at the time of the entry
    // that many ids back, and is walked newest first.
    const newest = await sql<{ id: string | null }>`SELECT max(id) AS id FROM activities`.execute(db)
    const from = await timeOfEntry(db, Number(newest.rows[0]?.id ?? 0) - SHORT_SEARCH_WINDOW)
    if (from) conditions.push(sql`a.created_at >= ${from}`)
    const rows = await pageOf(db, conditions, page)
    const total = await cappedCount(db, sql`SELECT a.id FROM activities a WHERE ${all(conditions)}`.compile(db), undefined, SHORT_SEARCH_WINDOW)
    return { rows, total }
  }

  // Everyone's entries, searched: the newest matches up to the page's end, then the page's rows by id.
  const need = offset + input.limit
  const estimated = await plannerEstimate(db, sql`SELECT a.id FROM activities a WHERE ${all(conditions)}`.compile(db))
  const entries = ranged ? await plannerEstimate(db, sql`SELECT a.id FROM activities a WHERE ${all(kind)}`.compile(db)) : await countActivities(db, input.activity)
  const way = await searchWay(db, kind, { need, estimated, entries })
  // The estimate above is the planner's for the whole term; the index is asked for its runs (search.ts).
  const indexed = [...kind, ...term.fragments.map((fragment) => sql`a.search_text LIKE lower(${fragment})`)]
  if (term.fragments.length !== 1 || term.fragments[0] !== term.pattern) indexed.push(sql`strpos(a.search_text, lower(${term.text})) > 0`)
  let found: string[]
  let total: number
  if (way.kind === 'all') {
    // Few matches, or far apart: read them all through the trigram index, newest first; the same
    // pass counts them exactly (up to the cap).
    found = await matchesNewestFirst(db, indexed, Math.max(need, EXACT_COUNT_CAP + 1))
    total = found.length <= EXACT_COUNT_CAP ? found.length : Math.max(estimated, found.length)
  } else if (way.kind === 'walk') {
    // Common enough to be met soon: walk newest first and test each entry. strpos, which no index
    // serves, keeps the planner from reading every match through the trigram index instead.
    const walked = [...kind, sql`strpos(a.search_text, lower(${term.text})) > 0`]
    found = await matchesNewestFirst(db, walked, need)
    total = found.length < need ? found.length : Math.max(estimated, found.length)
  } else {
    found = await matchesWeekByWeek(db, indexed, need, way, input.activity)
    total = found.length < need ? found.length : Math.max(estimated, found.length)
  }
  return { rows: await entriesById(db, found.slice(offset, offset + input.limit)), total }
}

/**
 * How a search of everyone's entries picks its way, from costs measured on the benchmark's ten
 * million entries (docs/decisions/0121), in milliseconds:
 * - rareMatches: the planner never estimates a LIKE below 1 row in 10,000 (1,000 entries there);
 *   at or near that floor a term is rare, and its matches are read all at once;
 * - walkPerEntry: one entry walked newest first and tested;
 * - readPerMatch: one match read through the trigram index, all matches at once (a heap page of its own);
 * - weekScan, readPerWeekMatch: one week's index scan, and each of its matches read;
 * - longestWeekRun: at most this many weeks are read in one statement.
 * Tests change them to exercise each way on a small database.
 */
export const searchTuning = {
  rareMatches: 2_000,
  walkPerEntry: 0.0003,
  readPerMatch: 0.003,
  weekScan: 1,
  readPerWeekMatch: 0.003,
  longestWeekRun: 64,
}

type SearchWay = { kind: 'all' } | { kind: 'walk' } | { kind: 'weeks'; newest: number; oldest: number; perWeek: number }

/** The week of a time: whole weeks since Monday 1970-01-05, UTC. */
const weekOf = (time: RawBuilder<unknown>) => sql<number>`((((${time} AT TIME ZONE 'UTC')::date) - DATE '1970-01-05') / 7)`
/** An entry's week (the first column of migration 0016's index). */
export const entryWeek = weekOf(sql`a.created_at`)
/** An entry's kind and week as one key ("logged out 2968"), the index's second column: one activity filter's week. */
export const entryKindWeek = sql`(a.kind || ' ' || (${entryWeek})::text)`

async function searchWay(db: Db, kind: RawBuilder<unknown>[], { need, estimated, entries }: { need: number; estimated: number; entries: number }): Promise<SearchWay> {
  const tuning = searchTuning
  if (estimated <= tuning.rareMatches) return { kind: 'all' }
  // Entries a newest-first walk is expected to read before it has the page.
  const walk = need / Math.min(1, Math.max(estimated, 1) / Math.max(entries, 1))
  const walkCost = walk * tuning.walkPerEntry
  const allCost = estimated * tuning.readPerMatch
  // The weeks' cost needs the weeks the entries span: only asked when the walk is not cheap already.
  let weeks: SearchWay | undefined
  let weeksCost = Infinity
  if (walkCost > tuning.weekScan) {
    // The oldest and newest times come from the index ends; only they are turned into weeks.
    const span = await sql<{ oldest: number | null; newest: number | null }>`
      SELECT ${weekOf(sql`min(a.created_at)`)} AS oldest, ${weekOf(sql`max(a.created_at)`)} AS newest FROM activities a WHERE ${all(kind)}`.execute(db)
    const { oldest: oldestWeek, newest: newestWeek } = span.rows[0] ?? {}
    if (oldestWeek != null && newestWeek != null) {
      const perWeek = estimated / (newestWeek - oldestWeek + 1)
      const weeksNeeded = Math.min(newestWeek - oldestWeek + 1, Math.ceil(need / perWeek))
      weeks = { kind: 'weeks', newest: newestWeek, oldest: oldestWeek, perWeek }
      weeksCost = weeksNeeded * tuning.weekScan + Math.min(estimated, need + perWeek / 2) * tuning.readPerWeekMatch
    }
  }
  if (weeks && weeksCost < walkCost && weeksCost < allCost) return weeks
  return allCost < walkCost ? { kind: 'all' } : { kind: 'walk' }
}

/**
 * The newest `need` matches, read a run of weeks at a time, newest first, each week through the
 * index of weeks and trigrams (one index scan per week: the week, or the activity filter's kind
 * in that week, and the term; the date range on what it finds).
 * A run is sized from the matches a week holds (the planner's estimate at first, then what the
 * weeks read so far held), with a margin of a tenth; the runs never overlap, so their matches follow one
 * another in order.
 */
async function matchesWeekByWeek(
  db: Db,
  conditions: RawBuilder<unknown>[],
  need: number,
  way: Extract<SearchWay, { kind: 'weeks' }>,
  activity: string | undefined,
): Promise<string[]> {
  // With an activity filter, the week of that kind is one key of the index: its entries alone are looked at.
  const ofWeek = activity ? sql`${entryKindWeek} = ${activity} || ' ' || w.n::text` : sql`${entryWeek} = w.n`
  const found: string[] = []
  let next = way.newest
  let perWeek = way.perWeek
  let weeksRead = 0
  while (found.length < need && next >= way.oldest) {
    const run = Math.max(1, Math.min(searchTuning.longestWeekRun, next - way.oldest + 1, Math.ceil(((need - found.length) * 1.1) / Math.max(perWeek, 1e-9))))
    const weeks = Array.from({ length: run }, (_, i) => next - i)
    const rows = await sql<{ id: string }>`
      SELECT x.id FROM unnest(${weeks}::int[]) AS w(n)
      CROSS JOIN LATERAL (SELECT a.id, a.created_at FROM activities a WHERE ${ofWeek} AND ${all(conditions)}) x
      ORDER BY x.created_at DESC, x.id DESC LIMIT ${need - found.length}`.execute(db)
    for (const row of rows.rows) found.push(String(row.id))
    next -= run
    weeksRead += run
    // What the weeks read so far held, for the next run (at least one match's worth, so a run of
    // empty weeks does not look like the end).
    perWeek = Math.max(found.length, 1) / weeksRead
  }
  return found
}

/**
 * One page: the ids first (an index-only walk past the skipped entries where the index has all it
 * needs), then only the page's entries and their users.
 */
async function pageOf(db: Db, conditions: RawBuilder<unknown>[], page: RawBuilder<unknown>): Promise<ActivityRow[]> {
  const rows = await sql<ActivityRow>`
    SELECT ${columns} FROM (SELECT a.id FROM activities a WHERE ${all(conditions)} ${newestFirst} ${page}) p
    JOIN activities a ON a.id = p.id LEFT JOIN users u ON u.id = a.user_id ${newestFirst}`.execute(db)
  return rows.rows
}

async function entriesById(db: Db, ids: string[]): Promise<ActivityRow[]> {
  if (ids.length === 0) return []
  const rows = await sql<ActivityRow>`SELECT ${columns} ${withUser} WHERE a.id = ANY(${ids}::bigint[]) ${newestFirst}`.execute(db)
  return rows.rows
}

async function matchesNewestFirst(db: Db, conditions: RawBuilder<unknown>[], limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }>`SELECT a.id FROM activities a WHERE ${all(conditions)} ${newestFirst} LIMIT ${limit}`.execute(db)
  return rows.rows.map((row) => String(row.id))
}

async function timeOfEntry(db: Db, id: number): Promise<Date | null> {
  const row = await sql<{ created_at: Date }>`SELECT created_at FROM activities WHERE id <= ${id} ORDER BY id DESC LIMIT 1`.execute(db)
  return row.rows[0]?.created_at ?? null
}

/** The newest entries of everyone, for the admin dashboard. */
export async function recentActivities(db: Db, count: number): Promise<ActivityRow[]> {
  const rows = await sql<ActivityRow>`SELECT ${columns} ${withUser} ${newestFirst} LIMIT ${count}`.execute(db)
  return rows.rows
}

export function toActivityEntry(row: ActivityRow, withUser: boolean): ActivityEntry {
  const entry: ActivityEntry = {
    id: String(row.id),
    activity: row.activity,
    details: row.details,
    ipAddress: row.ip_address,
    createdAt: new Date(row.created_at).toISOString(),
  }
  // Only on the entries that have them: an entry of one's own reads as it always did.
  if (row.actor_name !== null) {
    entry.actor =
      row.actor_application_id !== null
        ? { type: 'application', id: row.actor_application_id, name: row.actor_name }
        : { type: 'user', id: row.actor_id, name: row.actor_name }
  }
  const changes = fieldChanges(row.changes)
  if (changes) entry.changes = changes
  if (!withUser) return entry
  return {
    ...entry,
    user:
      row.user_id === null
        ? null
        : {
            id: row.user_id,
            name: row.user_name ?? '',
            email: row.user_email ?? '',
            role: row.user_role ?? 'CLIENT',
            profilePicture: pictureUrl(row.user_picture_id),
          },
  }
}

/** The stored changes as the API gives them (JSON text on a driver that does not parse it). */
function fieldChanges(stored: unknown): FieldChange[] | null {
  if (stored === null || stored === undefined) return null
  const parsed = fieldChangeSchema.array().safeParse(typeof stored === 'string' ? JSON.parse(stored) : stored)
  return parsed.success ? parsed.data : null
}
