import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type pg from 'pg'
import type { AccessTokens } from '~server/auth/access-token'
import type { Clock } from '~server/clock'
import type { CsrfTokens } from '~server/auth/csrf'
import type { DeviceTokens } from '~server/auth/device-tokens'
import type { PasswordHasher } from '~server/auth/password'
import type { TokenSealer } from '~server/auth/sealed-token'
import type { SessionLifetimes } from '~server/auth/sessions'
import type { Config } from '~server/config/env'
import type { Database, DatabaseKind } from '~server/db/types'
import type { JobQueue } from '~server/jobs/queue'
import type { Metrics } from '~server/metrics/metrics'
import type { OidcService } from '~server/oidc/service'
import type { RateLimiter } from '~server/rate-limit/rate-limiter'

/**
 * What the routes need, built once at boot (or by a test) and handed to every route plugin.
 * Nothing here keeps per-user state in memory: several instances on one database act as one.
 */
export interface AppContext {
  config: Config
  db: Kysely<Database>
  dbKind: DatabaseKind
  /** PostgreSQL's connection pool, for what Kysely does not do (the exports' COPY); absent on PGlite. */
  pgPool?: pg.Pool | undefined
  clock: Clock
  hasher: PasswordHasher
  accessTokens: AccessTokens
  csrf: CsrfTokens
  /** Seals a session's current refresh token for replays within the grace. */
  refreshTokenSealer: TokenSealer
  /** Seals authenticator-app secrets at rest. */
  totpSealer: TokenSealer
  /** Seals identity providers' client secrets at rest. */
  providerSecretSealer: TokenSealer
  /** Device cookies: sign-ins from a browser the account used before are counted on their own. */
  deviceTokens: DeviceTokens
  limiter: RateLimiter
  jobs: JobQueue
  lifetimes: SessionLifetimes
  /** Called after a change that queued a job has committed (wakes the job worker). */
  onJobQueued: () => void
  /** Called after a change that queued webhook deliveries has committed (wakes their runner). */
  onWebhookQueued: () => void
  /** Seals webhook signing secrets at rest. */
  webhookSealer: TokenSealer
  metrics: Metrics
  log: FastifyBaseLogger
  /** Sign in with Accounts: the OpenID Connect provider (src/server/oidc). */
  oidc: OidcService
  /**
   * Start-up work still runs after the port opened (the first administrator, main.ts): readiness
   * answers 503 meanwhile, so a probe's first 200 means the server is ready for sign-in.
   */
  startingUp: boolean
}
