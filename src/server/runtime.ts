import { format } from 'node:util'
import pino, { type Logger } from 'pino'
import { jsonLine, logIsReadable } from '../../scripts/log-format.mjs'
import { AccessTokens } from '~server/auth/access-token'
import { type Clock, systemClock } from '~server/clock'
import { CsrfTokens } from '~server/auth/csrf'
import { DeviceTokens } from '~server/auth/device-tokens'
import { PasswordHasher } from '~server/auth/password'
import { TokenSealer } from '~server/auth/sealed-token'
import { type Config, configWarnings } from '~server/config/env'
import { deriveKeys, loadOrCreateSecret } from '~server/config/secrets'
import type { AppContext } from './context'
import { type DataDirLock, ensureUsableDataDir, lockDataDir } from '~server/db/data-dir-lock'
import { type DatabaseHandle, openDatabase, probeDatabase } from '~server/db/database'
import { migrateToLatest } from '~server/db/migrate'
import { listImportedPasswordKinds } from '~server/data/import-users/password-kinds'
import { loggerOptions } from '~server/http/logging'
import { NO_COLOURS, readableDestination, TERMINAL_COLOURS } from '~server/http/readable-log'
import { outboxNotice } from '~server/mail/outbox-notice'
import { fulfilAccountRequest } from '~server/jobs/account-requests'
import { Housekeeping } from '~server/jobs/housekeeping'
import { JobQueue } from '~server/jobs/queue'
import { JobWorker } from '~server/jobs/worker'
import { WebhookSender } from '~server/jobs/webhook-sender'
import { renderMail } from '~server/mail/templates'
import { Metrics } from '~server/metrics/metrics'
import { createOutboxTransport, createSmtpTransport, type MailTransport } from '~server/mail/transport'
import { RateLimiter } from '~server/rate-limit/rate-limiter'
import { DatabaseRateLimitStore, RedisRateLimitStore } from '~server/rate-limit/stores'
import { BackchannelLogoutSender } from '~server/oidc/logout-jobs'
import { OidcService } from '~server/oidc/service'

/** How long the start waits for REDIS_URL's server to answer before it warns (it keeps trying after). */
const REDIS_CHECK_MS = 5_000

/**
 * Everything the server runs on, opened in order and closed in reverse: the data-directory lock,
 * the database (migrated), keys, the hasher, throttling, the job queue and its worker, housekeeping.
 * `main.ts` and the tests both start the product through here.
 */
export interface Runtime {
  ctx: AppContext
  jobWorker: JobWorker
  /** Delivers back-channel logouts to apps signed in with Accounts. */
  logoutSender: BackchannelLogoutSender
  /** Delivers webhooks to the endpoints admins registered. */
  webhookSender: WebhookSender
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
  /** Start the job worker and housekeeping timers (off in tests that drive them by hand). */
  background?: boolean
}

/** Whether this server's log is readable rather than JSON lines (LOG_FORMAT, else development on a terminal: decision 0212). */
export function readableLog(config: Config): boolean {
  return logIsReadable({ LOG_FORMAT: config.logFormat, NODE_ENV: config.env }, process.stdout)
}

/**
 * The server's logger: JSON lines (production, tests, anything piped), or in development on a
 * terminal the same lines made readable (http/readable-log.ts). LOG_FORMAT decides when set.
 */
function createLogger(config: Config): Logger {
  const options = loggerOptions(config.logLevel) as pino.LoggerOptions
  if (!readableLog(config)) return pino(options)
  return pino(options, readableDestination(process.stdout, process.stdout.isTTY ? TERMINAL_COLOURS : NO_COLOURS))
}

/** Migrations import nothing but Kysely, so they warn on the console: here those warnings go to the log, in its format. */
async function withConsoleWarningsLogged<T>(log: Logger, work: () => Promise<T>): Promise<T> {
  const consoleWarn = console.warn
  console.warn = (...args: unknown[]) => log.warn(format(...args))
  try {
    return await work()
  } finally {
    console.warn = consoleWarn
  }
}

export async function startRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const log = options.logger ?? createLogger(config)
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
    // On PostgreSQL the data directory still keeps a generated AUTH_SECRET and the outbox.
    if (config.databaseUrl && (!config.authSecret || !config.smtpUrl)) ensureUsableDataDir(config.dataDir)
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
      // Said in a sentence (`Cannot start: …`): nobody answering, no such database, the user refused.
      if (config.databaseUrl) await probeDatabase(database.db, config.databaseUrl, 'DATABASE_URL')
      await withConsoleWarningsLogged(log, () => migrateToLatest(database!.db))
    }

    const keys = deriveKeys(loadOrCreateSecret(config.authSecret, config.dataDir))
    for (const warning of configWarnings(config)) log.warn(warning)
    const store = !config.rateLimit ? null : config.redisUrl ? new RedisRateLimitStore(config.redisUrl, options.redisPrefix) : new DatabaseRateLimitStore(database.db)
    const limiter = new RateLimiter(store, clock)
    closers.push(() => limiter.close())

    const metrics = new Metrics()
    const jobs = new JobQueue(keys.jobPayload)
    const mailTransport = config.smtpUrl
      ? createSmtpTransport(config.smtpUrl, config.mailFrom)
      : createOutboxTransport(config.dataDir, config.mailFrom, (mail, links, file) => {
          // Outbox mode is for development: in a readable log, print the links so sign-up can be
          // finished by hand, framed so they stand out among the log lines. A JSON log is kept,
          // and the links carry one-time tokens: it says where the message is, not its links.
          // Either is said whatever LOG_LEVEL is, as the start-up lines are.
          if (readableLog(config)) console.log(outboxNotice(mail, links, file, process.stdout.isTTY === true))
          else process.stdout.write(jsonLine('info', 'e-mail written to the outbox (its links: the file, or the outbox page)', { file, subject: mail.subject }))
        })

    const oidc = await OidcService.start({
      db: database.db,
      clock,
      limiter,
      appUrl: config.appUrl,
      keySealer: new TokenSealer(keys.oidcKeySeal),
      accessTokenTtl: config.accessTokenTtl,
      sessionMaxAge: config.refreshTokenMaxAge,
      trustProxy: config.trustProxy.length > 0,
      onLogoutQueued: () => logoutSender.kick(),
      onKeysReplaced: (count) => log.warn({ count }, 'OpenID Connect keys sealed under another AUTH_SECRET were replaced; ID tokens they signed no longer verify'),
      metrics: {
        onIssued: (kind, application) => metrics.countOidcIssued(kind, application),
        onFailure: (endpoint, application, error) => metrics.countOidcFailure(endpoint, application, error),
      },
    })
    const logoutSender = new BackchannelLogoutSender(
      database.db,
      () => oidc,
      log,
      (outcome) => metrics.countBackchannelLogout(outcome),
    )
    closers.push(() => logoutSender.stop())

    const ctx: AppContext = {
      config,
      db: database.db,
      dbKind: database.kind,
      pgPool: database.pool,
      clock,
      hasher: new PasswordHasher({
        onReject: () => metrics.countHashRejection(),
        onCheck: (kind) => metrics.countPasswordCheck(kind),
        importedKinds: () => listImportedPasswordKinds(database.db),
      }),
      accessTokens: new AccessTokens(keys.accessToken, config.accessTokenTtl, clock),
      csrf: new CsrfTokens(keys.csrf),
      refreshTokenSealer: new TokenSealer(keys.refreshTokenSeal),
      totpSealer: new TokenSealer(keys.totpSecretSeal),
      providerSecretSealer: new TokenSealer(keys.identityProviderSecretSeal),
      deviceTokens: new DeviceTokens(keys.deviceToken, config.appUrl.startsWith('https:')),
      limiter,
      jobs,
      lifetimes: { idleSeconds: config.refreshTokenTtl, maxAgeSeconds: config.refreshTokenMaxAge },
      // The worker is made just below; a change can only be committed once this returns.
      onJobQueued: () => void jobWorker.kick(),
      onWebhookQueued: () => webhookSender.eventsQueued(),
      webhookSealer: new TokenSealer(keys.webhookSecretSeal),
      metrics,
      log,
      oidc,
      startingUp: false,
    }
    metrics.watch({ hasher: ctx.hasher, db: database.db, pool: database.pool, clock })
    const jobWorker = new JobWorker(
      database.db,
      jobs,
      mailTransport,
      (message) => renderMail(message, config.appName),
      clock,
      log,
      (request, claim) => fulfilAccountRequest(ctx, request, claim),
      (outcome) => metrics.countMailAttempt(outcome),
    )
    closers.push(() => jobWorker.stop())
    const webhookSender = new WebhookSender(ctx, (outcome) => metrics.countWebhookDelivery(outcome))
    closers.push(() => webhookSender.stop())
    if (options.background !== false) {
      // Said at start, not at the first sign-up: an SMTP_URL that cannot be used. Mail waits in the
      // queue meanwhile, and a mail server that is only down must not stop the start.
      mailTransport.check().catch((error: unknown) => {
        log.warn({ reason: (error as Error).message }, 'the SMTP server of SMTP_URL cannot be used now: mail waits in the queue and is retried. Check SMTP_URL')
      })
      // The same for REDIS_URL: until it answers, throttled requests (sign-in, registration, the
      // e-mailed links) answer 503 and readiness says not ready; the connection keeps retrying.
      limiter.storeConnected(REDIS_CHECK_MS).catch((error: unknown) => {
        log.warn(
          { reason: (error as Error).message },
          'the Redis server of REDIS_URL cannot be reached now: sign-in, registration and the other throttled requests answer 503 until it can, and /api/health/ready says not ready. Check REDIS_URL',
        )
      })
      jobWorker.start()
      logoutSender.start()
      webhookSender.start()
      const housekeeping = new Housekeeping(database.db, clock, log, database.kind)
      housekeeping.start()
      closers.push(() => housekeeping.stop())
    }
    return { ctx, jobWorker, logoutSender, webhookSender, mailTransport, close }
  } catch (error) {
    await close()
    throw error
  }
}
