import type { Kysely, Transaction } from 'kysely'
import type { ActivityFilter } from '~shared/constants'
import type { Database } from '~server/db/types'

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
  kind: ActivityKind
  activity: string
  details?: string | null
  ip: string | null
  at: Date
}

export async function recordActivity(trx: Transaction<Database> | Kysely<Database>, entry: ActivityEntry): Promise<void> {
  await trx
    .insertInto('activities')
    .values({
      user_id: entry.userId,
      actor_id: entry.actorId ?? entry.userId,
      kind: entry.kind,
      activity: entry.activity,
      details: entry.details ?? null,
      ip_address: entry.ip,
      created_at: entry.at,
    })
    .execute()
}
