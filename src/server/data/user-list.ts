import { type ExpressionBuilder, type Kysely, sql } from 'kysely'
import type { Role, Status } from '../../shared/constants'
import type { Database } from '../db/types'
import { cappedCount, countUsers } from './counts'
import { parseSearch, type SearchTerm } from './search'
import { type UserRecord, userColumns } from './users'

/**
 * The admin's user list: newest first, filtered by role and status, searched by name or e-mail.
 *
 * A search of three letters or more matches anywhere in the name or e-mail, case-insensitively,
 * on the trigram indexes. A shorter one matches the start of the name or of the e-mail (prefix
 * indexes): "an" anywhere in a million names matches most of them and says nothing, while "an"
 * at the start is what someone typing a name means.
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
  let matching = db.selectFrom('users')
  if (input.role) matching = matching.where('role', '=', input.role)
  if (input.status) matching = matching.where('status', '=', input.status)
  if (term) matching = matching.where((eb) => userMatches(eb, term))

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

export function userMatches(eb: ExpressionBuilder<Database, 'users'>, term: SearchTerm) {
  if (term.kind === 'substring') {
    // search_text is lower(name, e-mail): one trigram index, and LIKE instead of ILIKE.
    return sql<boolean>`search_text LIKE lower(${term.pattern})`
  }
  const prefix = `${term.escaped}%`
  // lower() of the bound value is folded by the planner, so the prefix indexes apply.
  return eb.or([sql<boolean>`lower(name) LIKE lower(${prefix})`, sql<boolean>`email LIKE lower(${prefix})`])
}
