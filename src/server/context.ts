import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { AccessTokens } from './auth/access-token'
import type { Clock } from './auth/clock'
import type { CsrfTokens } from './auth/csrf'
import type { DeviceTokens } from './auth/device-tokens'
import type { PasswordHasher } from './auth/password'
import type { TokenSealer } from './auth/sealed-token'
import type { SessionLifetimes } from './auth/sessions'
import type { Config } from './config/env'
import type { DatabaseKind } from './db/database'
import type { Database } from './db/types'
import type { MailQueue } from './mail/mail-queue'
import type { Metrics } from './metrics/metrics'
import type { RateLimiter } from './rate-limit/rate-limiter'

/**
 * What the routes need, built once at boot (or by a test) and handed to every route plugin.
 * Nothing here keeps per-user state in memory: several instances on one database act as one.
 */
export interface AppContext {
  config: Config
  db: Kysely<Database>
  dbKind: DatabaseKind
  clock: Clock
  hasher: PasswordHasher
  accessTokens: AccessTokens
  csrf: CsrfTokens
  /** Seals a session's current refresh token for replays within the grace. */
  refreshTokenSealer: TokenSealer
  /** Device cookies: sign-ins from a browser the account used before are counted on their own. */
  deviceTokens: DeviceTokens
  limiter: RateLimiter
  mailQueue: MailQueue
  lifetimes: SessionLifetimes
  /** Called after a change that queued mail has committed (wakes the mail worker). */
  onMailQueued: () => void
  metrics: Metrics
  log: FastifyBaseLogger
}
