import type { Transaction } from 'kysely'
import type { AppContext } from '~server/context'
import { type ActivityEntry, recordActivity } from '~server/data/activity/activities'
import type { Database } from '~server/db/types'
import type { AccountRequest, Job, MailMessage } from '~server/jobs/queue'

/**
 * The one way to write: a change, the activity entries that record it and the jobs it leaves
 * (mail, deferred requests) are committed in one transaction, so no change exists without its
 * entry, and no entry or mail without its change.
 */
export interface Change {
  trx: Transaction<Database>
  /** The moment of the change, from the injected clock; every timestamp written uses it. */
  now: Date
  record(entry: Omit<ActivityEntry, 'at'>): Promise<void>
  mail(message: MailMessage): Promise<void>
  /** Queues an account request the job worker carries out after the answer (jobs/account-requests.ts). */
  defer(request: AccountRequest): Promise<void>
}

export async function commitChange<T>(ctx: AppContext, work: (change: Change) => Promise<T>): Promise<T> {
  let queued = false
  const now = ctx.clock()
  const result = await ctx.db.transaction().execute((trx) => {
    // A message and a request to carry out go into the same queue, the same way.
    const queue = async (job: Job) => {
      await ctx.jobs.enqueue(trx, job, now)
      queued = true
    }
    return work({ trx, now, record: (entry) => recordActivity(trx, { ...entry, at: now }), mail: queue, defer: queue })
  })
  if (queued) ctx.onJobQueued()
  return result
}
