import type { Language } from '~shared/constants'
import type { Transaction } from 'kysely'
import { findUserById, lockUserRow, type UserRecord } from '~server/data/users/users'
import type { Database } from '~server/db/types'
import { forbidden, notFound } from '~server/http/errors'

/** What the admin's edit and delete share: who acts on whom, and the checks both make first. */
export interface AdminAction {
  actorId: string
  targetId: string
  ip: string
  /** The language of the admin's request: an e-mail the action sends is written in it. */
  lang: Language
}

/** Key of the advisory lock serialising changes that may remove an active admin. */
export const ACTIVE_ADMINS_LOCK = 72_530_001

/** The target, locked for the change; a 404 when it does not exist (or was just deleted). */
export async function lockTarget(trx: Transaction<Database>, id: string): Promise<UserRecord> {
  const user = await lockUserRow(trx, id)
  if (!user) throw notFound('User not found', 'USER_NOT_FOUND')
  return user
}

/** The acting admin may have been demoted or suspended a moment ago by another admin. */
export async function stillActiveAdmin(trx: Transaction<Database>, actorId: string): Promise<UserRecord> {
  const actor = await findUserById(trx, actorId)
  if (actor?.role !== 'ADMIN' || actor.status !== 'ACTIVE') throw forbidden()
  return actor
}
