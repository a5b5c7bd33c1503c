import type { ActivityFilter } from '~shared/constants'
import type { Db } from '~server/db/types'

/**
 * The activity log's writer. Every change calls it inside the transaction that makes the change,
 * so a change and its entry are committed together or not at all. Entries are never edited.
 *
 * `kind` is the filter group an entry belongs to (the activity filter's values); the text begins with
 * the word its badge shows ("Logged in", "Updated profile", "Deleted user ...").
 */
export type ActivityKind = Exclude<ActivityFilter, 'all'> | 'other'

export interface ActivityEntry {
  /** Whom the entry is about. */
  userId: string | null
  /** Who did it, when not the user themself (an admin). */
  actorId?: string | null
  /** The service application that did it (contract section 11); `actorId` is then null. */
  actorApplication?: { id: string; name: string }
  kind: ActivityKind
  activity: string
  details?: string | null
  /**
   * An admin edit's changed fields, from what to what (never a secret): `FieldChange` of the
   * shared list schemas, written out so that every writer of the log (sign-in among them) does
   * not import those schemas.
   */
  changes?: { field: string; from: string | null; to: string | null }[] | null
  ip: string | null
  at: Date
}

export async function recordActivity(trx: Db, entry: ActivityEntry): Promise<void> {
  if (entry.actorApplication) {
    await trx
      .insertInto('activities')
      .values({
        user_id: entry.userId,
        actor_id: null,
        actor_application_id: entry.actorApplication.id,
        actor_name: entry.actorApplication.name,
        kind: entry.kind,
        activity: entry.activity,
        details: entry.details ?? null,
        changes: entry.changes && entry.changes.length > 0 ? JSON.stringify(entry.changes) : null,
        ip_address: entry.ip,
        created_at: entry.at,
      })
      .execute()
    return
  }
  const actorId = entry.actorId ?? entry.userId
  // Someone acting on another's account is named on the entry as they are named now, so the
  // entry keeps saying who did it after they are renamed or deleted (decision 0117).
  const actedForSomeoneElse = actorId !== null && actorId !== entry.userId
  await trx
    .insertInto('activities')
    .values((eb) => ({
      user_id: entry.userId,
      actor_id: actorId,
      actor_name: actedForSomeoneElse ? eb.selectFrom('users').select('name').where('id', '=', actorId) : null,
      kind: entry.kind,
      activity: entry.activity,
      details: entry.details ?? null,
      changes: entry.changes && entry.changes.length > 0 ? JSON.stringify(entry.changes) : null,
      ip_address: entry.ip,
      created_at: entry.at,
    }))
    .execute()
}
