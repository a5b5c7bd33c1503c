import type { Transaction } from 'kysely'
import type { WebhookEventType } from '~shared/schemas/webhooks'
import type { AppContext } from '~server/context'
import { type ActivityEntry, recordActivity } from '~server/data/activity/activities'
import { findAdminUserById, toAdminUser } from '~server/data/users/users'
import { insertEvent } from '~server/data/webhooks/events'
import type { Database } from '~server/db/types'
import type { AccountRequest, Job, MailMessage } from '~server/jobs/queue'

/**
 * The one way to write: a change, the activity entries that record it, the jobs it leaves (mail,
 * deferred requests) and the events it tells the company's systems about (webhooks and the events
 * feed, decision 0521) are committed in one transaction, so no change exists without its entry,
 * and no entry, mail or event without its change.
 */
export interface Change {
  trx: Transaction<Database>
  /** The moment of the change, from the injected clock; every timestamp written uses it. */
  now: Date
  record(entry: Omit<ActivityEntry, 'at'>): Promise<void>
  mail(message: MailMessage): Promise<void>
  /** Queues an account request the job worker carries out after the answer (jobs/account-requests.ts). */
  defer(request: AccountRequest): Promise<void>
  /** Writes an event to the outbox, with a delivery for each endpoint that wants it; answers its id. */
  emit(type: WebhookEventType, data: Record<string, unknown>, options?: { webhookId?: string }): Promise<string>
  /**
   * An event about a user: `data.user` is the account as an admin sees it now, inside this
   * transaction (after the change), with `extra` beside it. Nothing when the account is gone.
   */
  emitUser(type: WebhookEventType, userId: string, extra?: Record<string, unknown>): Promise<void>
}

export async function commitChange<T>(ctx: AppContext, work: (change: Change) => Promise<T>): Promise<T> {
  let queued = false
  let delivering = false
  const now = ctx.clock()
  const result = await ctx.db.transaction().execute((trx) => {
    // A message and a request to carry out go into the same queue, the same way.
    const queue = async (job: Job) => {
      await ctx.jobs.enqueue(trx, job, now)
      queued = true
    }
    const emit: Change['emit'] = async (type, data, options = {}) => {
      const event = await insertEvent(trx, { type, data, at: now, ...options })
      if (event.deliveries > 0) delivering = true
      return event.id
    }
    const emitUser: Change['emitUser'] = async (type, userId, extra = {}) => {
      const user = await findAdminUserById(trx, userId)
      if (user) await emit(type, { user: toAdminUser(user), ...extra })
    }
    return work({ trx, now, record: (entry) => recordActivity(trx, { ...entry, at: now }), mail: queue, defer: queue, emit, emitUser })
  })
  if (queued) ctx.onJobQueued()
  if (delivering) ctx.onWebhookQueued()
  return result
}
