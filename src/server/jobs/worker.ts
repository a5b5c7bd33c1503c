import type { FastifyBaseLogger } from 'fastify'
import type { Kysely, Transaction } from 'kysely'
import { addSeconds, type Clock } from '~server/clock'
import type { Database } from '~server/db/types'
import type { RenderedMail } from '~server/mail/templates'
import type { MailTransport } from '~server/mail/transport'
import { Runner } from './runner'
import { type AccountRequest, isAccountRequest, type JobQueue, type MailMessage, type MailOutcome } from './queue'

/**
 * Carries out queued jobs: sends e-mails, and hands account requests to `fulfil`. A job is leased
 * (its run_after pushed forward) in a short transaction, carried out outside it, then deleted; if
 * the process dies meanwhile, the lease runs out and another attempt is made, so nothing queued
 * is lost. Failures back off and give up after MAX_ATTEMPTS. Several instances share the queue
 * safely (SKIP LOCKED). The timer, the wake-ups and draining are the shared runner's (`runner.ts`).
 */
const LEASE_SECONDS = 60
const MAX_ATTEMPTS = 8
const POLL_MS = 2_000

export class JobWorker {
  private readonly runner: Runner

  constructor(
    private readonly db: Kysely<Database>,
    private readonly queue: JobQueue,
    private readonly transport: MailTransport,
    /** Writes a queued message out in its language (`mail/templates.ts`). */
    private readonly render: (message: MailMessage) => RenderedMail,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    /** Carries out a queued account request; `claim` takes it off the queue in the same transaction. */
    private readonly fulfil: (request: AccountRequest, claim: (trx: Transaction<Database>) => Promise<boolean>) => Promise<void>,
    /** Told how each attempt at sending a message ended (counted by the metrics). */
    private readonly report: (outcome: MailOutcome) => void = () => {},
  ) {
    this.runner = new Runner({ pass: () => this.pass() }, POLL_MS, (error) => this.log.warn({ err: error }, 'job queue pass failed'))
  }

  start(): void {
    this.runner.start()
  }

  /** Runs a pass now (or right after the current one). */
  kick(): Promise<void> {
    return this.runner.kick()
  }

  /**
   * Sends everything that is due; resolves when the queue has nothing due left and no pass started
   * earlier is still sending (a job leased by that pass is not due, but it is not sent yet either).
   */
  async drain(): Promise<void> {
    await this.runner.drain()
  }

  /** Leases and carries out due jobs, batch after batch; answers how many. */
  private async pass(): Promise<number> {
    let taken = 0
    for (;;) {
      let jobs
      try {
        jobs = await this.lease()
      } catch (error) {
        this.log.warn({ err: error }, 'job queue unavailable')
        return taken
      }
      if (jobs.length === 0) return taken
      taken += jobs.length
      await Promise.all(jobs.map((job) => this.send(job)))
    }
  }

  async stop(): Promise<void> {
    await this.runner.stop()
    this.transport.close()
  }

  private async lease() {
    const now = this.clock()
    return this.db.transaction().execute(async (trx) => {
      const due = await trx.selectFrom('mail_jobs').select('id').where('run_after', '<=', now).orderBy('run_after').limit(10).forUpdate().skipLocked().execute()
      if (due.length === 0) return []
      return trx
        .updateTable('mail_jobs')
        .set((eb) => ({ run_after: addSeconds(now, LEASE_SECONDS), attempts: eb('attempts', '+', 1) }))
        .where(
          'id',
          'in',
          due.map((d) => d.id),
        )
        .returning(['id', 'payload', 'attempts'])
        .execute()
    })
  }

  private async send(job: { id: string; payload: string; attempts: number }): Promise<void> {
    try {
      const message = this.queue.open(job.payload)
      if (isAccountRequest(message)) {
        // Its mail, if any, is queued by the same transaction and sent by the next lease.
        await this.fulfil(message, async (trx) => (await trx.deleteFrom('mail_jobs').where('id', '=', job.id).executeTakeFirst()).numDeletedRows > 0n)
        return
      }
      await this.transport.send(this.render(message))
      await this.db.deleteFrom('mail_jobs').where('id', '=', job.id).execute()
      this.report('sent')
      this.log.info({ mailJob: job.id, template: message.template }, 'mail sent')
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      this.report(job.attempts >= MAX_ATTEMPTS ? 'given-up' : 'retry')
      if (job.attempts >= MAX_ATTEMPTS) {
        this.log.error({ mailJob: job.id, reason }, 'mail given up after repeated failures')
        await this.db
          .deleteFrom('mail_jobs')
          .where('id', '=', job.id)
          .execute()
          .catch(() => {})
        return
      }
      const retryIn = Math.min(3600, 15 * 2 ** (job.attempts - 1))
      this.log.warn({ mailJob: job.id, reason, retryIn }, 'mail not sent, will retry')
      await this.db
        .updateTable('mail_jobs')
        .set({ run_after: addSeconds(this.clock(), retryIn), last_error: reason.slice(0, 500) })
        .where('id', '=', job.id)
        .execute()
        .catch(() => {})
    }
  }
}
