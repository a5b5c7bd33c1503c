import pino, { type Logger } from 'pino'
import { fulfilAccountRequest } from './auth/account-requests'
import { AccessTokens } from './auth/access-token'
import { type Clock, systemClock } from './auth/clock'
import { CsrfTokens } from './auth/csrf'
import { DeviceTokens } from './auth/device-tokens'
import { PasswordHasher } from './auth/password'
import { TokenSealer } from './auth/sealed-token'
import type { Config } from './config/env'
import { deriveKeys, loadOrCreateSecret } from './config/secrets'
import type { AppContext } from './context'
import { type DataDirLock, lockDataDir } from './db/data-dir-lock'
import { type DatabaseHandle, openDatabase } from './db/database'
import { migrateToLatest } from './db/migrate'
import { loggerOptions } from './http/logging'
import { Housekeeping } from './jobs/housekeeping'
import { MailQueue } from './mail/mail-queue'
import { MailWorker } from './mail/mail-worker'
import { Metrics } from './metrics/metrics'
import { createOutboxTransport, createSmtpTransport, type MailTransport } from './mail/transport'
import { RateLimiter } from './rate-limit/rate-limiter'
import { DatabaseRateLimitStore, RedisRateLimitStore } from './rate-limit/stores'

/**
 * Everything the server runs on, opened in order and closed in reverse: the data-directory lock,
 * the database (migrated), keys, the hasher, throttling, mail and its worker, housekeeping.
 * `main.ts` and the tests both start the product through here.
 */
export interface Runtime {
  ctx: AppContext
  mailWorker: MailWorker
  mailTransport: MailTransport
  close(): Promise<void>
}

export interface RuntimeOptions {
  /** An already open database (tests); otherwise opened from the configuration. */
  database?: DatabaseHandle
  clock?: Clock
  logger?: Logger
  /** Redis key prefix for throttling counters, so test runs do not share them. */
  redisPrefix?: string
  /** Start the mail worker and housekeeping timers (off in tests that drive them by hand). */
  background?: boolean
}

export async function startRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const log = options.logger ?? pino(loggerOptions(config.logLevel) as pino.LoggerOptions)
  const clock = options.clock ?? systemClock
  const closers: (() => Promise<void> | void)[] = []
  const close = async () => {
    for (const closer of closers.reverse()) {
      try {
        await closer()
      } catch (error) {
        log.error({ err: error }, 'error while shutting down')
      }
    }
  }

  try {
    let database = options.database
    if (!database) {
      if (!config.databaseUrl) {
        const lock: DataDirLock = await lockDataDir(config.dataDir)
        closers.push(() => lock.release())
        database = await openDatabase({ dataDir: config.dataDir })
      } else {
        database = await openDatabase({
          url: config.databaseUrl,
          onPoolError: (error) => log.warn({ err: { message: error.message } }, 'database connection lost'),
        })
      }
      closers.push(() => database!.close())
      await migrateToLatest(database.db)
    }

    const keys = deriveKeys(loadOrCreateSecret(config.authSecret, config.dataDir))
    if (!config.rateLimit) log.warn('RATE_LIMIT=off: throttling is DISABLED. Use this only for tests.')
    const store = !config.rateLimit
      ? null
      : config.redisUrl
        ? new RedisRateLimitStore(config.redisUrl, options.redisPrefix)
        : new DatabaseRateLimitStore(database.db)
    const limiter = new RateLimiter(store, clock)
    closers.push(() => limiter.close())

    const metrics = new Metrics()
    const mailQueue = new MailQueue(keys.mailPayload)
    const mailTransport = config.smtpUrl
      ? createSmtpTransport(config.smtpUrl, config.mailFrom)
      : createOutboxTransport(config.dataDir, config.mailFrom, (mail, links) => {
          // Outbox mode is for development: print the links so sign-up can be finished by hand.
          console.log(`\n[outbox] "${mail.subject}" to ${mail.to}\n${links.map((l) => `  ${l}`).join('\n')}\n`)
        })

    let mailWorker: MailWorker | undefined
    const ctx: AppContext = {
      config,
      db: database.db,
      dbKind: database.kind,
      clock,
      hasher: new PasswordHasher({ onReject: () => metrics.countHashRejection() }),
      accessTokens: new AccessTokens(keys.accessToken, config.accessTokenTtl, clock),
      csrf: new CsrfTokens(keys.csrf),
      refreshTokenSealer: new TokenSealer(keys.refreshTokenSeal),
      deviceTokens: new DeviceTokens(keys.deviceToken, config.appUrl.startsWith('https:')),
      limiter,
      mailQueue,
      lifetimes: { idleSeconds: config.refreshTokenTtl, maxAgeSeconds: config.refreshTokenMaxAge },
      onMailQueued: () => void mailWorker?.kick(),
      metrics,
      log,
    }
    metrics.watch({ hasher: ctx.hasher, db: database.db, pool: database.pool, clock })
    mailWorker = new MailWorker(
      database.db,
      mailQueue,
      mailTransport,
      clock,
      log,
      (request, claim) => fulfilAccountRequest(ctx, request, claim),
      (outcome) => metrics.countMailAttempt(outcome),
    )
    closers.push(() => mailWorker!.stop())
    if (options.background !== false) {
      mailWorker.start()
      const housekeeping = new Housekeeping(database.db, clock, log)
      housekeeping.start()
      closers.push(() => housekeeping.stop())
    }
    return { ctx, mailWorker, mailTransport, close }
  } catch (error) {
    await close()
    throw error
  }
}
