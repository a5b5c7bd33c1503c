import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import { addSeconds, type Clock } from '~server/clock'
import { deleteEndedSessions, deleteEndedSessionTokens, forgetSealedRefreshTokens, SEEN_DEVICES_SECONDS } from '~server/auth/sessions'
import { deleteExpiredMfaChallenges } from '~server/data/two-factor/second-factors'
import { retireUnusedPasswordKinds } from '~server/data/import-users/password-kinds'
import { setBackSearchIndexesOfAKilledImport } from '~server/use-cases/import-users/search-indexes'
import { deleteExpiredChallenges } from '~server/auth/webauthn-challenges'
import { EmbeddedDatabaseMaintenance } from '~server/db/maintenance'
import type { Database, DatabaseKind } from '~server/db/types'
import { deleteExpiredPayloads } from '~server/oidc/adapter'
import { deleteOldEvents } from '~server/data/webhooks/events'

/**
 * Hourly clean-up of what has no use left: the refresh tokens of sessions ended more than a week
 * ago, the sessions themselves once they ended more than 90 days ago (until then they tell the
 * new-sign-in notice which devices the account used, docs/decisions/0311), sealed refresh tokens
 * past their grace, expired one-time tokens, sign-ins that waited in vain for their second step,
 * passkey challenges nobody answered, webhook events past the feed's 30 days (with their deliveries), throttling windows that are over, the kinds of imported
 * password hash no account holds any more (decision 0552), the search indexes an import killed
 * before its end left keeping a pending list (decision 0555), and what the OpenID
 * Connect provider stored that has expired (codes, tokens, interactions, provider sessions). The activity log is
 * never touched. On the embedded database it then vacuums and analyses the tables, as PostgreSQL's
 * autovacuum would (src/server/db/maintenance.ts).
 */
const EVERY_MS = 60 * 60 * 1000
const KEEP_ENDED_SESSION_TOKENS_SECONDS = 7 * 24 * 60 * 60
const KEEP_ENDED_SESSIONS_SECONDS = SEEN_DEVICES_SECONDS

export class Housekeeping {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private readonly maintenance: EmbeddedDatabaseMaintenance | undefined
  private readonly databaseKind: DatabaseKind

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    databaseKind: DatabaseKind,
  ) {
    this.maintenance = databaseKind === 'pglite' ? new EmbeddedDatabaseMaintenance(db) : undefined
    this.databaseKind = databaseKind
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.run().catch((error) => this.log.warn({ err: error }, 'housekeeping failed'))
    }, EVERY_MS)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.running
  }

  async run(): Promise<void> {
    const now = this.clock()
    await deleteEndedSessionTokens(this.db, addSeconds(now, -KEEP_ENDED_SESSION_TOKENS_SECONDS))
    await deleteEndedSessions(this.db, addSeconds(now, -KEEP_ENDED_SESSIONS_SECONDS))
    await forgetSealedRefreshTokens(this.db, now)
    await this.db
      .deleteFrom('one_time_tokens')
      .where('expires_at', '<', addSeconds(now, -24 * 60 * 60))
      .execute()
    await this.db.deleteFrom('rate_limits').where('reset_at', '<', now).execute()
    await deleteExpiredMfaChallenges(this.db, now)
    await deleteExpiredChallenges(this.db, now)
    await deleteOldEvents(this.db, now)
    const retired = await retireUnusedPasswordKinds(this.db)
    if (retired.length > 0) this.log.info({ kinds: retired }, 'imported password hashes no account holds any more: failed sign-ins no longer do their work')
    const setBack = await setBackSearchIndexesOfAKilledImport({ db: this.db, dbKind: this.databaseKind })
    if (setBack.length > 0) this.log.info({ indexes: setBack }, 'search indexes an interrupted import left keeping a pending list set back (decision 0555)')
    // The protocol engine sets expiry by the system's time, not the injected clock.
    await deleteExpiredPayloads(this.db, new Date())
    if (this.maintenance) {
      const started = performance.now()
      const { vacuumed, analysed } = await this.maintenance.run()
      this.log.info({ vacuumed: vacuumed.length, analysed, ms: Math.round(performance.now() - started) }, 'embedded database vacuumed')
    }
  }
}
