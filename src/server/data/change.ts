import type { Transaction } from 'kysely'
import type { AppContext } from '~server/context'
import type { Database } from '~server/db/types'
import type { AccountRequest } from '~server/auth/account-requests'
import type { QueuedItem } from '~server/mail/mail-queue'
import type { MailMessage } from '~server/mail/templates'
import { type ActivityEntry, recordActivity } from './activities'

/**
 * The one way to write: a change, the activity entries that record it and the mail it causes are
 * committed in one transaction, so no change exists without its entry, and no entry or mail
 * without its change.
 */
export interface Change {
  trx: Transaction<Database>
  /** The moment of the change, from the injected clock; every timestamp written uses it. */
  now: Date
  record(entry: Omit<ActivityEntry, 'at'>): Promise<void>
  mail(message: MailMessage): Promise<void>
  /** Queues a request the mail worker carries out after the answer (auth/account-requests.ts). */
  defer(request: AccountRequest): Promise<void>
}

export async function commitChange<T>(ctx: AppContext, work: (change: Change) => Promise<T>): Promise<T> {
  let mailQueued = false
  const now = ctx.clock()
  const result = await ctx.db.transaction().execute((trx) => {
    // A message and a request to carry out go into the same queue, the same way.
    const queue = async (item: QueuedItem) => {
      await ctx.mailQueue.enqueue(trx, item, now)
      mailQueued = true
    }
    return work({ trx, now, record: (entry) => recordActivity(trx, { ...entry, at: now }), mail: queue, defer: queue })
  })
  if (mailQueued) ctx.onMailQueued()
  return result
}
