import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely'
import type { Role, Status } from '~shared/constants'
import type { SortOrder, UserSort } from '~shared/schemas/lists'
import type { Database, Db } from '~server/db/types'
import { cappedCount, countUsers, plannerEstimate } from '~server/data/counts'
import { parseSearch, type SearchTerm } from '~server/data/search'
import { type AdminUserRecord, adminUserColumns } from './users'

/**
 * The admin's user list: sorted by any of its columns (newest first by default), filtered by role,
 * status, verification, two-factor and dormancy, searched by name or e-mail.
 *
 * A search matches anywhere in the name or e-mail, case-insensitively. Terms
 * with three letters or digits in a row use the trigram index; shorter ones, when rare, the index
 * of characters and character pairs (migration 0005, docs/decisions/0102).
 */
export interface UserFilters {
  search?: string | undefined
  role?: Role | undefined
  status?: Status | undefined
  verified?: boolean | undefined
  mfa?: boolean | undefined
  /** No sign-in for this many days before `now` (never signed in included). */
  inactiveDays?: number | undefined
  sort: UserSort
  order: SortOrder
  /** The injected clock's time, which the dormant filter counts back from. */
  now: Date
}

export interface UserListInput extends UserFilters {
  page: number
  limit: number
}

export interface UserListResult {
  users: AdminUserRecord[]
  total: number
}

/**
 * What each sort orders by: the key, then the id, both in the requested direction, so that
 * `asc` is exactly `desc` reversed and ties never swap between pages. Each has its index
 * (migrations 0002 and 0012), walked forwards or backwards. E-mail addresses are unique, so they
 * need no tie-breaker; created_at keeps its newest-first index. A last sign-in sorts never-signed-in
 * accounts as the oldest (docs/decisions/0110).
 */
export const SORT_KEYS: Record<UserSort, RawBuilder<unknown>> = {
  name: sql`lower(name)`,
  email: sql`email`,
  role: sql`role`,
  status: sql`status`,
  createdAt: sql`created_at`,
  lastSignInAt: sql`coalesce(last_sign_in_at, '-infinity'::timestamptz)`,
}

export function userOrder(sort: UserSort, order: SortOrder): RawBuilder<unknown> {
  const direction = order === 'asc' ? sql`ASC` : sql`DESC`
  return sort === 'email' ? sql`${SORT_KEYS.email} ${direction}` : sql`${SORT_KEYS[sort]} ${direction}, id ${direction}`
}

export async function listUsers(db: Db, input: UserListInput): Promise<UserListResult> {
  const matching = await filteredUsers(db, input)
  const order = userOrder(input.sort, input.order)

  // The page's ids first (an index-only walk past the skipped users where the index has all it
  // needs), then only the page's rows.
  const pageIds = matching
    .select('id')
    .orderBy(order)
    .limit(input.limit)
    .offset((input.page - 1) * input.limit)
  const users = await db.selectFrom('users').select(adminUserColumns).where('id', 'in', pageIds).orderBy(order).execute()
  const counted = input.search !== undefined || input.verified !== undefined || input.mfa !== undefined || input.inactiveDays !== undefined
  const total = counted ? await cappedCount(db, matching.select('id').compile()) : await countUsers(db, input)
  return { users, total }
}

/**
 * The users a list or an export shows, before ordering: role, status, verification, two-factor,
 * dormancy and search. The dormant condition is the sort key's own expression, so that the last
 * sign-in index serves it as a range.
 */
export async function filteredUsers(db: Db, input: Omit<UserFilters, 'sort' | 'order'>) {
  const term = parseSearch(input.search)
  let filtered = db.selectFrom('users')
  if (input.role) filtered = filtered.where('role', '=', input.role)
  if (input.status) filtered = filtered.where('status', '=', input.status)
  if (input.verified !== undefined) filtered = filtered.where('email_verified_at', input.verified ? 'is not' : 'is', null)
  if (input.mfa !== undefined) filtered = filtered.where('mfa_enabled', '=', input.mfa)
  if (input.inactiveDays !== undefined) {
    const since = new Date(input.now.getTime() - input.inactiveDays * 86_400_000)
    filtered = filtered.where(sql<boolean>`${SORT_KEYS.lastSignInAt} <= ${since}`)
  }
  return term ? filtered.where(await userMatches(db, filtered, term)) : filtered
}

/**
 * How a short term picks its way: below `rareMatches` estimated matches it is looked up in the
 * index of character pairs; above, the newest-first walk fills a page sooner than the index could
 * list every match (measured on the benchmark's million users). Tests change it to exercise both.
 */
export const shortSearchTuning = { rareMatches: 5_000 }

/** The search condition (search_text is lower(name, e-mail): one column, LIKE instead of ILIKE). */
async function userMatches(db: Db, filtered: SelectQueryBuilder<Database, 'users', object>, term: SearchTerm) {
  if (term.kind === 'substring') return sql<boolean>`search_text LIKE lower(${term.pattern})`
  // No trigram in the term. strpos is the plain substring test; the pairs index (migration 0005)
  // is asked only when the planner, from its statistics, expects few matches: computing the
  // pairs of every walked row for a common term would cost more than the walk itself.
  const contains = sql<boolean>`strpos(search_text, lower(${term.text})) > 0`
  const pairs = sql<boolean>`search_grams(search_text) @> search_term_grams(lower(${term.text}))`
  const estimated = await plannerEstimate(db, filtered.select('id').where(pairs).compile())
  return estimated < shortSearchTuning.rareMatches ? sql<boolean>`${pairs} AND ${contains}` : contains
}
