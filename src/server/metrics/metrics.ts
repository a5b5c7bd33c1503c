import type { Kysely } from 'kysely'
import type pg from 'pg'
import client from 'prom-client'
import type { PasswordHasher } from '~server/auth/password'
import type { Clock } from '~server/clock'
import type { Database } from '~server/db/types'
import type { MailOutcome } from '~server/jobs/queue'
import { RequestDurations } from './request-durations'
import { SIGN_IN_OUTCOMES, type SignInOutcome } from './sign-in-outcome'

/**
 * What GET /metrics shows, one instance per running app: request durations
 * by route pattern and status, sign-in outcomes, the password-hash queue, the mail queue and its
 * failures, and the database pool. Node's runtime metrics belong to the process, not to an app,
 * so they live in one registry per process (several test apps share a process).
 *
 * Counters are bumped where things happen; queue depths and pool counts are read when scraped,
 * so an idle server does no work for its metrics.
 */

/** Seconds. The fast end is fine-grained: a signed-in GET takes about 2 ms (docs/benchmarks/auth.md). */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The methods an unmatched request is labelled with; any other is `other`. */
const USUAL_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** The parts of the running server whose state is read at scrape time. */
export interface MetricsSources {
  hasher: PasswordHasher
  db: Kysely<Database>
  pool: pg.Pool | undefined
  clock: Clock
}

let processRegistry: client.Registry | undefined

/** Node's runtime metrics (CPU, memory, event loop lag, GC, handles), collected once per process. */
function processMetrics(): client.Registry {
  if (!processRegistry) {
    processRegistry = new client.Registry()
    client.collectDefaultMetrics({ register: processRegistry })
  }
  return processRegistry
}

/** How a webhook delivery attempt ended. */
export const WEBHOOK_OUTCOMES = ['delivered', 'failed', 'exhausted'] as const
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number]

export class Metrics {
  readonly registry = new client.Registry()
  private sources: MetricsSources | undefined
  private readonly requestDurations = new RequestDurations(DURATION_BUCKETS)
  private readonly signIns: client.Counter<'outcome'>
  private readonly passkeySignIns: client.Counter<'outcome'>
  private readonly hashRejections: client.Counter
  private readonly passwordChecks: client.Counter<'kind'>
  private readonly mailAttempts: client.Counter<'outcome'>
  private readonly oidcIssued: client.Counter<'application' | 'kind'>
  private readonly oidcFailures: client.Counter<'application' | 'endpoint' | 'error'>
  private readonly backchannelLogouts: client.Counter<'outcome'>
  private readonly providerSignIns: client.Counter<'kind' | 'outcome'>
  private readonly webhookDeliveries: client.Counter<'outcome'>

  constructor() {
    processMetrics()
    const registers = [this.registry]
    const sources = () => this.sources
    this.registry.registerMetric(this.requestDurations as unknown as client.Metric)
    this.signIns = new client.Counter({
      name: 'accounts_sign_ins_total',
      help: 'Answers to POST /api/auth/login, by outcome',
      labelNames: ['outcome'],
      registers,
    })
    for (const outcome of SIGN_IN_OUTCOMES) this.signIns.inc({ outcome }, 0)
    this.passkeySignIns = new client.Counter({
      name: 'accounts_passkey_sign_ins_total',
      help: 'Answers to POST /api/auth/passkeys/authentication, by outcome',
      labelNames: ['outcome'],
      registers,
    })
    for (const outcome of SIGN_IN_OUTCOMES) this.passkeySignIns.inc({ outcome }, 0)
    this.providerSignIns = new client.Counter({
      name: 'accounts_provider_sign_ins_total',
      help: 'Sign-ins through identity providers, by kind of provider and outcome (refused: a callback or handoff that failed its checks)',
      labelNames: ['kind', 'outcome'],
      registers,
    })
    this.hashRejections = new client.Counter({
      name: 'accounts_password_hash_rejected_total',
      help: 'Requests turned away with a 503 because the password-hash queue was full',
      registers,
    })
    this.passwordChecks = new client.Counter({
      name: 'accounts_password_checks_total',
      help: "Password checks made, by the kind of hash checked (the product's Argon2id, or an imported kind with its cost parameters): a failed check does one of every kind some account holds (decision 0552)",
      labelNames: ['kind'],
      registers,
    })
    this.mailAttempts = new client.Counter({
      name: 'accounts_mail_send_attempts_total',
      help: 'Attempts at sending a queued e-mail, by outcome (sent, retry: failed and rescheduled, given-up: failed for the last time)',
      labelNames: ['outcome'],
      registers,
    })
    for (const outcome of ['sent', 'retry', 'given-up'] as const) this.mailAttempts.inc({ outcome }, 0)
    this.oidcIssued = new client.Counter({
      name: 'accounts_oidc_issued_total',
      help: 'Sign in with Accounts: authorization codes and token-endpoint grants issued, by application (client_id) and kind (authorization_code, refresh_token, code)',
      labelNames: ['application', 'kind'],
      registers,
    })
    this.oidcFailures = new client.Counter({
      name: 'accounts_oidc_failures_total',
      help: 'Sign in with Accounts: protocol errors answered, by application (client_id, or "unknown"), endpoint and error code',
      labelNames: ['application', 'endpoint', 'error'],
      registers,
    })
    this.backchannelLogouts = new client.Counter({
      name: 'accounts_oidc_backchannel_logouts_total',
      help: 'Back-channel logout deliveries, by outcome (sent, retry: failed and rescheduled, given-up)',
      labelNames: ['outcome'],
      registers,
    })
    for (const outcome of ['sent', 'retry', 'given-up'] as const) this.backchannelLogouts.inc({ outcome }, 0)
    this.webhookDeliveries = new client.Counter({
      name: 'accounts_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (delivered, failed: to be tried again, exhausted: failed for the last time)',
      labelNames: ['outcome'],
      registers,
    })
    for (const outcome of WEBHOOK_OUTCOMES) this.webhookDeliveries.inc({ outcome }, 0)
    new client.Gauge({
      name: 'accounts_webhook_queue_deliveries',
      help: 'Webhook deliveries waiting: not yet attempted, or failed and to be tried again',
      registers,
      async collect() {
        const from = sources()
        this.reset()
        if (!from) return
        try {
          const row = await from.db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('status', 'in', ['pending', 'failed'])
            .executeTakeFirstOrThrow()
          this.set(Number(row.n))
        } catch {
          // Database out of reach: no sample.
        }
      },
    })
    new client.Gauge({
      name: 'accounts_webhook_oldest_pending_seconds',
      help: 'Age of the oldest webhook delivery still waiting (0 when none waits)',
      registers,
      async collect() {
        const from = sources()
        this.reset()
        if (!from) return
        try {
          const row = await from.db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.min('created_at').as('oldest'))
            .where('status', 'in', ['pending', 'failed'])
            .executeTakeFirstOrThrow()
          const oldest = row.oldest ? new Date(row.oldest as unknown as string).getTime() : null
          this.set(oldest === null ? 0 : Math.max(0, (from.clock().getTime() - oldest) / 1000))
        } catch {
          // Database out of reach: no sample.
        }
      },
    })

    new client.Gauge({
      name: 'accounts_password_hash_queue',
      help: 'Password hashes running (at most one per core) and waiting for a core',
      labelNames: ['state'],
      registers,
      collect() {
        const hasher = sources()?.hasher
        if (!hasher) return
        this.set({ state: 'running' }, hasher.running)
        this.set({ state: 'waiting' }, hasher.waiting)
      },
    })
    new client.Gauge({
      name: 'accounts_password_hash_queue_limit',
      help: 'Waiting hashes beyond which requests are answered 503',
      registers,
      collect() {
        const hasher = sources()?.hasher
        if (hasher) this.set(hasher.maxQueue)
      },
    })
    new client.Gauge({
      name: 'accounts_mail_queue_jobs',
      help: 'Jobs in the mail queue: due now (waiting to be sent), or scheduled later (retries, leased by a sender)',
      labelNames: ['state'],
      registers,
      async collect() {
        const from = sources()
        this.reset()
        if (!from) return
        try {
          const { due, total } = await from.db
            .selectFrom('mail_jobs')
            .select((eb) => [eb.fn.countAll<string>().filterWhere('run_after', '<=', from.clock()).as('due'), eb.fn.countAll<string>().as('total')])
            .executeTakeFirstOrThrow()
          this.set({ state: 'due' }, Number(due))
          this.set({ state: 'scheduled' }, Number(total) - Number(due))
        } catch {
          // Database out of reach: no sample rather than a stale one (readiness reports the outage).
        }
      },
    })
    new client.Gauge({
      name: 'accounts_db_pool_connections',
      help: 'PostgreSQL pool connections: total open, idle, and requests waiting for one (absent on the embedded database)',
      labelNames: ['state'],
      registers,
      collect() {
        const pool = sources()?.pool
        if (!pool) return
        this.set({ state: 'total' }, pool.totalCount)
        this.set({ state: 'idle' }, pool.idleCount)
        this.set({ state: 'waiting' }, pool.waitingCount)
      },
    })
    new client.Gauge({
      name: 'accounts_db_pool_max',
      help: 'Most connections the PostgreSQL pool opens',
      registers,
      collect() {
        const pool = sources()?.pool
        if (pool) this.set(pool.options.max ?? 10)
      },
    })
  }

  /** Connects the gauges to the running server (which is built after the metrics it reports to). */
  watch(sources: MetricsSources): void {
    this.sources = sources
  }

  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    // A request no route took is labelled as such: never its raw URL, nor a method outside HTTP's
    // usual ones (Node.js accepts some thirty, WebDAV's among them), which anyone can vary.
    if (route === undefined) this.requestDurations.observe(USUAL_METHODS.has(method) ? method : 'other', 'unmatched', status, seconds)
    else this.requestDurations.observe(method, route, status, seconds)
  }

  countSignIn(outcome: SignInOutcome): void {
    this.signIns.inc({ outcome })
  }

  /** Labels are bounded: a provider kind, and one of a few outcomes. */
  countProviderSignIn(kind: string, outcome: 'signed-in' | 'second-step' | 'created' | 'link-required' | 'refused' | 'no-account' | 'account-refused'): void {
    this.providerSignIns.inc({ kind, outcome })
  }

  countPasskeySignIn(outcome: SignInOutcome): void {
    this.passkeySignIns.inc({ outcome })
  }

  countHashRejection(): void {
    this.hashRejections.inc()
  }

  countPasswordCheck(kind: string): void {
    this.passwordChecks.inc({ kind })
  }

  countMailAttempt(outcome: MailOutcome): void {
    this.mailAttempts.inc({ outcome })
  }

  countOidcIssued(kind: string, application: string | undefined): void {
    this.oidcIssued.inc({ application: application ?? 'unknown', kind })
  }

  countOidcFailure(endpoint: string, application: string | undefined, error: string): void {
    this.oidcFailures.inc({ application: application ?? 'unknown', endpoint, error })
  }

  countBackchannelLogout(outcome: 'sent' | 'retry' | 'given-up'): void {
    this.backchannelLogouts.inc({ outcome })
  }

  countWebhookDelivery(outcome: WebhookOutcome): void {
    this.webhookDeliveries.inc({ outcome })
  }

  get contentType(): string {
    return this.registry.contentType
  }

  /** The Prometheus text exposition of the process's and this app's metrics. */
  text(): Promise<string> {
    return client.Registry.merge([processMetrics(), this.registry]).metrics()
  }
}
