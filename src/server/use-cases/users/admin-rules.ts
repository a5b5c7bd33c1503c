import type { Language } from '~shared/constants'
import type { Transaction } from 'kysely'
import type { ActingApplication } from '~server/auth/service-credentials'
import { findUserById, lockUserRow, type UserRecord } from '~server/data/users/users'
import type { Database } from '~server/db/types'
import { forbidden, notFound } from '~server/http/errors'

export type { ActingApplication }

/**
 * What the admin's edit and delete share: who acts on whom, and the checks both make first. The
 * actor is a person (`actorId`, an admin) or a service application (`application`, `actorId` null).
 */
export interface AdminAction {
  actorId: string | null
  application?: ActingApplication
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

/** Who acts, checked in the change's transaction, and how the activity entry names them. */
export interface CheckedActor {
  /** The admin's name, or the application's. */
  name: string
  /** "Ada Admin (ada@example.com)", or the application's name. */
  label: string
  /** The fields of `Change.record` that name the actor. */
  entry: { actorId: string | null; actorApplication?: ActingApplication }
}

/**
 * The acting admin is still an active ADMIN, or the acting service application is still enabled
 * (its credential was checked at the start of the request; an admin may have disabled it since).
 */
export async function stillAllowedActor(trx: Transaction<Database>, action: Pick<AdminAction, 'actorId' | 'application'>): Promise<CheckedActor> {
  if (action.application) {
    const application = await trx
      .selectFrom('oidc_applications')
      .select(['id', 'name'])
      .where('id', '=', action.application.id)
      .where('type', '=', 'service')
      .where('enabled', '=', true)
      .executeTakeFirst()
    if (!application) throw forbidden()
    return { name: application.name, label: application.name, entry: { actorId: null, actorApplication: { id: application.id, name: application.name } } }
  }
  if (!action.actorId) throw forbidden()
  const actor = await stillActiveAdmin(trx, action.actorId)
  return { name: actor.name, label: `${actor.name} (${actor.email})`, entry: { actorId: actor.id } }
}
