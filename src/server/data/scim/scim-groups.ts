import type { Role } from '~shared/constants'
import { isUuid } from '~server/data/users/users'
import type { Db } from '~server/db/types'

/** The accounts of a role, as a group's members, and the roles of named accounts. */

export interface MemberRow {
  id: string
  name: string
}

/** At most `limit` members in the order of ids (the caller asks for one more than it may show). */
export function listRoleMembers(db: Db, role: Role, limit: number): Promise<MemberRow[]> {
  return db.selectFrom('users').select(['id', 'name']).where('role', '=', role).orderBy('id').limit(limit).execute()
}

export async function rolesOf(db: Db, ids: string[]): Promise<Map<string, Role>> {
  const valid = [...new Set(ids.filter(isUuid))]
  if (valid.length === 0) return new Map()
  const rows = await db.selectFrom('users').select(['id', 'role']).where('id', 'in', valid).execute()
  return new Map(rows.map((row) => [row.id, row.role]))
}

/** The accounts of a role that are not among `keep` (a `replace` of a group's members). */
export async function roleMembersOutside(db: Db, role: Role, keep: string[]): Promise<string[]> {
  let query = db.selectFrom('users').select('id').where('role', '=', role)
  const valid = keep.filter(isUuid)
  if (valid.length > 0) query = query.where('id', 'not in', valid)
  return (await query.execute()).map((row) => row.id)
}
