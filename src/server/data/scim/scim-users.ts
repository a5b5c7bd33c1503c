import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely'
import type { UserFilter } from '~server/scim/user-filter'
import type { ScimUserRecord } from '~server/scim/user-resource'
import { normalizeEmail } from '~shared/email-address'
import { countUsers } from '~server/data/counts'
import { escapeLike } from '~server/data/search'
import { isUuid } from '~server/data/users/users'
import type { Database, Db } from '~server/db/types'

/**
 * Accounts as SCIM Users: a resolved filter becomes one SQL condition, so a list reads only the
 * page it answers. `userName eq` reads the index on `lower(coalesce(scim_user_name, email))` and
 * `externalId eq` the one on `scim_external_id` (migration 0022); `emails.value eq` the address's
 * own unique index.
 */

export const scimUserColumns = [
  'id',
  'name',
  'email',
  'phone',
  'role',
  'status',
  'created_at',
  'updated_at',
  'scim_user_name',
  'scim_external_id',
  'scim_given_name',
  'scim_family_name',
] as const

type Eb = ExpressionBuilder<Database, 'users'>

const userNameExpression = sql<string>`lower(coalesce(users.scim_user_name, users.email))`

function text(eb: Eb, attribute: 'userName' | 'externalId' | 'email' | 'displayName') {
  if (attribute === 'userName') return userNameExpression
  if (attribute === 'externalId') return eb.ref('users.scim_external_id')
  if (attribute === 'email') return eb.ref('users.email')
  return sql<string>`lower(users.name)`
}

export function userFilterCondition(eb: Eb, filter: UserFilter): Expression<SqlBool> {
  switch (filter.op) {
    case 'and':
      return eb.and([userFilterCondition(eb, filter.left), userFilterCondition(eb, filter.right)])
    case 'or':
      return eb.or([userFilterCondition(eb, filter.left), userFilterCondition(eb, filter.right)])
    case 'not':
      // Written so that a null (an absent externalId) makes NOT (…) true, as "not equal" means.
      return eb.not(eb.fn.coalesce(userFilterCondition(eb, filter.filter), sql<SqlBool>`false`))
    case 'const':
      return filter.value ? sql<SqlBool>`true` : sql<SqlBool>`false`
    case 'pr':
      if (filter.attribute === 'externalId') return eb('users.scim_external_id', 'is not', null)
      if (filter.attribute === 'displayName') return eb('users.name', '!=', '')
      return sql<SqlBool>`true`
  }
  if (filter.attribute === 'active') {
    const active = eb('users.status', '=', 'ACTIVE')
    return (filter.op === 'eq') === filter.value ? active : eb.not(active)
  }
  if (filter.attribute === 'id') {
    if (!isUuid(filter.value)) return filter.op === 'eq' ? sql<SqlBool>`false` : sql<SqlBool>`true`
    return filter.op === 'eq' ? eb('users.id', '=', filter.value) : eb('users.id', '!=', filter.value)
  }
  // externalId is case-exact (RFC 7643); the others compare without regard to case.
  const value = filter.attribute === 'externalId' ? filter.value : filter.attribute === 'email' ? normalizeEmail(filter.value) : filter.value.toLowerCase()
  const column = text(eb, filter.attribute)
  switch (filter.op) {
    case 'eq':
      return eb(column, '=', value)
    case 'ne':
      return eb.or([eb(column, 'is', null), eb(column, '!=', value)])
    case 'co':
      return eb(column, 'like', `%${escapeLike(value)}%`)
    case 'sw':
      return eb(column, 'like', `${escapeLike(value)}%`)
  }
}

export interface UserListQuery {
  filter?: UserFilter
  startIndex: number
  count: number
  /**
   * The id of the account just before `startIndex`, when the caller knows it (the last of the
   * page before): the page is then read from there in the id index, instead of skipping
   * `startIndex - 1` rows, which at a million accounts makes a full read quadratic.
   */
  after?: string
}

/** One page in the order of ids, and how many match in all (without a filter, from the counter table). */
export async function listScimUsers(db: Db, query: UserListQuery): Promise<{ rows: ScimUserRecord[]; total: number }> {
  const where = (eb: Eb) => (query.filter ? userFilterCondition(eb, query.filter) : sql<SqlBool>`true`)
  let total: number
  if (query.filter) {
    const totalRow = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(where)
      .executeTakeFirstOrThrow()
    total = Number(totalRow.n)
  } else {
    total = await countUsers(db, {})
  }
  if (query.count === 0 || query.startIndex > total) return { rows: [], total }
  let page = db.selectFrom('users').select(scimUserColumns).where(where).orderBy('id').limit(query.count)
  page = query.after !== undefined ? page.where('id', '>', query.after) : page.offset(query.startIndex - 1)
  return { rows: await page.execute(), total }
}

export function findScimUser(db: Db, id: string): Promise<ScimUserRecord | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined)
  return db.selectFrom('users').select(scimUserColumns).where('id', '=', id).executeTakeFirst()
}

/** The account a userName already names (its own given one, or its address), without regard to case. */
export function findUserNameHolder(db: Db, userName: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('users').select('id').where(userNameExpression, '=', userName.toLowerCase()).executeTakeFirst()
}
