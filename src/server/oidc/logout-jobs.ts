import type { FastifyBaseLogger } from 'fastify'
import { type Kysely, sql } from 'kysely'
import type { Database } from '~server/db/types'
import { Runner } from '~server/jobs/runner'
import type { OidcService } from './service'
import { deliverBackchannelLogout } from './provider'

/**
 * Back-channel logouts (decision 0402): queued in `oidc_logout_jobs` by the trigger that ends a
 * product session's provider sessions (migration 0014) or by the engine's own RP-initiated logout,
 * and delivered here: a signed `logout_token` POSTed to the app's registered URI. An app that is
 * down or answers an error is tried again after 1, 2, 4 … seconds, at most 10 minutes apart, for
 * MAX_ATTEMPTS tries (about 67 minutes in all); then the job is dropped with a warning. Any
 * instance may deliver any job: each claims its batch with `FOR UPDATE SKIP LOCKED`.
 */
export const MAX_ATTEMPTS = 16
const POLL_MS = 2_000
const BATCH = 20
/** How long a claimed job is left to the instance that claimed it. */
const LEASE_MS = 60_000

export function retryDelaySeconds(attempts: number): number {
  return Math.min(600, 2 ** Math.max(0, attempts - 1))
}

export class BackchannelLogoutSender {
  private readonly runner: Runner

  constructor(
    private readonly db: Kysely<Database>,
    private readonly service: () => OidcService,
    private readonly log: FastifyBaseLogger,
    private readonly onOutcome: (outcome: 'sent' | 'retry' | 'given-up') => void = () => {},
  ) {
    this.runner = new Runner({ pass: () => this.deliverDue() }, POLL_MS, (error) => this.log.warn({ err: error }, 'back-channel logout delivery failed'))
  }

  start(): void {
    this.runner.start()
  }

  async stop(): Promise<void> {
    await this.runner.stop()
  }

  /** Delivers what is due now (also after a logout was queued). */
  kick(): void {
    void this.runner.kick()
  }

  /**
   * Delivers everything that is due; resolves when nothing due is left and no delivery started
   * earlier (by a kick) is still in flight. Tests call it, as they call the mail worker's.
   */
  drain(): Promise<number> {
    return this.runner.drain()
  }

  /** Delivers every job that is due, batch after batch; answers how many it claimed. */
  private async deliverDue(): Promise<number> {
    let claimed = 0
    for (;;) {
      const done = await this.deliverBatch()
      claimed += done.claimed
      if (done.claimed < BATCH) return claimed
    }
  }

  private async deliverBatch(): Promise<{ claimed: number; sent: number }> {
    // Claimed with a lease (no transaction is held open while apps are called): a job whose
    // instance died on the way is due again when the lease ends.
    const now = new Date()
    const jobs = await sql<{ id: string; client_id: string; account_id: string; sid: string; attempts: number }>`
      UPDATE oidc_logout_jobs SET run_after = ${new Date(now.getTime() + LEASE_MS)}
      WHERE id IN (
        SELECT id FROM oidc_logout_jobs WHERE run_after <= ${now} ORDER BY run_after, id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED
      )
      RETURNING id, client_id, account_id, sid, attempts`.execute(this.db)
    let sent = 0
    for (const job of jobs.rows) {
      try {
        const outcome = await deliverBackchannelLogout(this.service().provider, job.client_id, job.account_id, job.sid)
        await this.db.deleteFrom('oidc_logout_jobs').where('id', '=', job.id).execute()
        if (outcome === 'sent') {
          sent += 1
          this.onOutcome('sent')
        }
      } catch (error) {
        const attempts = job.attempts + 1
        const message = error instanceof Error ? error.message : String(error)
        if (attempts >= MAX_ATTEMPTS) {
          this.log.warn({ clientId: job.client_id, attempts, error: message }, 'back-channel logout given up')
          await this.db.deleteFrom('oidc_logout_jobs').where('id', '=', job.id).execute()
          this.onOutcome('given-up')
        } else {
          await this.db
            .updateTable('oidc_logout_jobs')
            .set({ attempts, run_after: new Date(Date.now() + retryDelaySeconds(attempts) * 1000), last_error: message.slice(0, 500) })
            .where('id', '=', job.id)
            .execute()
          this.onOutcome('retry')
        }
      }
    }
    return { claimed: jobs.rows.length, sent }
  }
}
