import { type Kysely, type SelectQueryBuilder, sql } from 'kysely'
import type { Role, Status } from '~shared/constants'
import type { Database } from '~server/db/types'
import { cappedCount, countUsers, plannerEstimate } from './counts'
import { parseSearch, type SearchTerm } from './search'
import { type UserRecord, userColumns } from './users'

/**
 * The admin's user list: newest first, filtered by role and status, searched by name or e-mail.
 *
 * A search matches anywhere in the name or e-mail, case-insensitively. Terms
 * with three letters or digits in a row use the trigram index; shorter ones, when rare, the index
 * of characters and character pairs (migration 0005, docs/decisions/0102).
 */
export interface UserListInput {
  page: number
  limit: number
  search?: string | undefined
  role?: Role | undefined
  status?: Status | undefined
}

export interface UserListResult {
  users: UserRecord[]
  total: number
}

export async function listUsers(db: Kysely<Database>, input: UserListInput): Promise<UserListResult> {
  const term = parseSearch(input.search)
  let filtered = db.selectFrom('users')
  if (input.role) filtered = filtered.where('role', '=', input.role)
  if (input.status) filtered = filtered.where('status', '=', input.status)
  const matching = term ? filtered.where(await userMatches(db, filtered, term)) : filtered

  // The page's ids first (an index-only walk past the skipped users when there is no search),
  // then only the page's rows.
  const pageIds = matching
    .select('id')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(input.limit)
    .offset((input.page - 1) * input.limit)
  const users = await db
    .selectFrom('users')
    .select(userColumns)
    .where('id', 'in', pageIds)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute()
  const total = term ? await cappedCount(db, matching.select('id').compile()) : await countUsers(db, input)
  return { users, total }
}

/**
 * How a short term picks its way: below `rareMatches` estimated matches it is looked up in the
 * index of character pairs; above, the newest-first walk fills a page sooner than the index could
 * list every match (measured on the benchmark's million users). Tests change it to exercise both.
 */
export const shortSearchTuning = { rareMatches: 5_000 }

/** The search condition (search_text is lower(name, e-mail): one column, LIKE instead of ILIKE). */
async function userMatches(db: Kysely<Database>, filtered: SelectQueryBuilder<Database, 'users', object>, term: SearchTerm) {
  if (term.kind === 'substring') return sql<boolean>`search_text LIKE lower(${term.pattern})`
  // No trigram in the term. strpos is the plain substring test; the pairs index (migration 0005)
  // is asked only when the planner, from its statistics, expects few matches: computing the
  // pairs of every walked row for a common term would cost more than the walk itself.
  const contains = sql<boolean>`strpos(search_text, lower(${term.text})) > 0`
  const pairs = sql<boolean>`search_grams(search_text) @> search_term_grams(lower(${term.text}))`
  const estimated = await plannerEstimate(db, filtered.select('id').where(pairs).compile())
  return estimated < shortSearchTuning.rareMatches ? sql<boolean>`${pairs} AND ${contains}` : contains
}
