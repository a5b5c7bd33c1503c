import { Webhook as StandardWebhook } from 'standardwebhooks'
import { paths } from '~shared/paths'
import { addSeconds } from '~server/clock'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { type LeasedDelivery, leaseDueDeliveries, recordAttempt } from '~server/data/webhooks/deliveries'
import { eventBody } from '~server/data/webhooks/events'
import type { WebhookOutcome } from '~server/metrics/metrics'
import { Runner } from './runner'
import { postWebhook, WEBHOOK_TIMEOUT_MS, type WebhookResponse } from './webhook-request'

/**
 * Delivers webhooks (contract section 12, decision 0522), on the shared runner. Each pass leases
 * due deliveries up to the free places of this instance (at most PER_ENDPOINT in flight to one
 * endpoint, IN_FLIGHT in all) and starts them without waiting: a receiver that takes its 15 seconds
 * holds up no other endpoint, and a finished delivery wakes the runner for the next.
 *
 * Signed as Standard Webhooks says, by the `standardwebhooks` package: `webhook-id` is the event's
 * id (the same on every attempt), `webhook-timestamp` the attempt's time, `webhook-signature` one
 * `v1,…` per secret that signs (two for 24 hours after a rotation).
 */
const POLL_MS = 2_000
export const PER_ENDPOINT = 4
const IN_FLIGHT = 64
/** Longer than an attempt can take: a lease that runs out means the instance died on the way. */
const LEASE_SECONDS = Math.ceil(WEBHOOK_TIMEOUT_MS / 1000) * 4

/** Seconds before attempt 2, 3, … 10 (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h); then exhausted. */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400] as const
/** Jitter: each wait is between 90 % and 110 % of the schedule's. */
export const JITTER = 0.1
/** An endpoint that has failed every attempt for this long is disabled and the admins are told. */
export const DISABLE_AFTER_SECONDS = 5 * 24 * 60 * 60
const RETRY_AFTER_MAX_SECONDS = 24 * 60 * 60

/** The wait before the next attempt, or null when that was the last one. */
export function nextWaitSeconds(attempts: number, random: () => number = Math.random): number | null {
  const base = RETRY_SCHEDULE_SECONDS[attempts - 1]
  if (base === undefined) return null
  return base * (1 - JITTER + 2 * JITTER * random())
}

/** Retry-After as seconds (a number of seconds or an HTTP date), within a day; null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now: Date): number | null {
  if (!value) return null
  const text = value.trim()
  const seconds = /^\d{1,10}$/.test(text) ? Number(text) : (Date.parse(text) - now.getTime()) / 1000
  if (!Number.isFinite(seconds)) return null
  return Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(1, seconds))
}

export class WebhookSender {
  private readonly runner: Runner
  private readonly inFlight = new Map<string, number>()
  private readonly attempts = new Set<Promise<void>>()
  /** How long a receiver has to answer (tests shorten it rather than wait 15 seconds). */
  timeoutMs = WEBHOOK_TIMEOUT_MS

  constructor(
    private readonly ctx: AppContext,
    private readonly report: (outcome: WebhookOutcome) => void = () => {},
  ) {
    this.runner = new Runner({ pass: () => this.pass(), settled: () => this.settled() }, POLL_MS, (error) =>
      this.ctx.log.warn({ err: error }, 'webhook delivery pass failed'),
    )
  }

  start(): void {
    this.runner.start()
  }

  kick(): void {
    void this.runner.kick()
  }

  /** Delivers everything due, attempts in flight included (tests). */
  drain(): Promise<number> {
    return this.runner.drain()
  }

  stop(): Promise<void> {
    return this.runner.stop()
  }

  private async settled(): Promise<void> {
    while (this.attempts.size > 0) await Promise.all([...this.attempts])
  }

  private async pass(): Promise<number> {
    const total = [...this.inFlight.values()].reduce((sum, n) => sum + n, 0)
    const busy = [...this.inFlight].filter(([, n]) => n >= PER_ENDPOINT).map(([id]) => id)
    const now = this.ctx.clock()
    let leased: LeasedDelivery[]
    try {
      leased = await leaseDueDeliveries(this.ctx.db, {
        now,
        leaseUntil: addSeconds(now, LEASE_SECONDS),
        limit: IN_FLIGHT - total,
        perEndpoint: PER_ENDPOINT,
        busy,
      })
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'webhook deliveries unavailable')
      return 0
    }
    for (const delivery of leased) {
      this.inFlight.set(delivery.webhook_id, (this.inFlight.get(delivery.webhook_id) ?? 0) + 1)
      const attempt: Promise<void> = this.attempt(delivery)
        .catch((error: unknown) => this.ctx.log.warn({ err: error, delivery: delivery.id }, 'webhook delivery failed to record'))
        .finally(() => {
          this.attempts.delete(attempt)
          const left = (this.inFlight.get(delivery.webhook_id) ?? 1) - 1
          if (left > 0) this.inFlight.set(delivery.webhook_id, left)
          else this.inFlight.delete(delivery.webhook_id)
          this.kick()
        })
      this.attempts.add(attempt)
    }
    return leased.length
  }

  /** The signature header: the current secret's, and the previous one's while it still signs. */
  private signature(delivery: LeasedDelivery, sentAt: Date, body: string): string {
    const secrets = [delivery.secret]
    if (delivery.previous_secret && delivery.previous_secret_until && new Date(delivery.previous_secret_until) > this.ctx.clock()) secrets.push(delivery.previous_secret)
    return secrets
      .map((sealed) => {
        const secret = this.ctx.webhookSealer.open(sealed)
        if (!secret) throw new Error('A webhook secret sealed under another AUTH_SECRET cannot be opened')
        return new StandardWebhook(secret).sign(delivery.event_id, sentAt, body)
      })
      .join(' ')
  }

  private async attempt(delivery: LeasedDelivery): Promise<void> {
    const body = eventBody(delivery)
    // The receiver compares webhook-timestamp with its own clock (5 minutes' tolerance): the wall clock's time.
    const sentAt = new Date()
    let response: WebhookResponse
    try {
      const headers = {
        'webhook-id': delivery.event_id,
        'webhook-timestamp': Math.floor(sentAt.getTime() / 1000).toString(),
        'webhook-signature': this.signature(delivery, sentAt, body),
      }
      response = await postWebhook(delivery.url, headers, body, this.timeoutMs)
    } catch (error) {
      response = { error: error instanceof Error ? error.message : String(error) }
    }
    const now = this.ctx.clock()
    const ok = 'status' in response && response.status >= 200 && response.status < 300
    const base = { at: now, responseStatus: 'status' in response ? response.status : null, responseBody: 'status' in response ? response.body : response.error }
    if (ok) {
      await recordAttempt(this.ctx.db, delivery.id, { ...base, status: 'delivered', nextAttemptAt: null })
      await this.ctx.db.updateTable('webhooks').set({ failing_since: null }).where('id', '=', delivery.webhook_id).where('failing_since', 'is not', null).execute()
      this.report('delivered')
      return
    }
    const throttled = 'status' in response && (response.status === 429 || response.status === 503) ? retryAfterSeconds(response.retryAfter, now) : null
    const wait = throttled ?? nextWaitSeconds(delivery.attempts)
    await recordAttempt(this.ctx.db, delivery.id, {
      ...base,
      status: wait === null ? 'exhausted' : 'failed',
      nextAttemptAt: wait === null ? null : addSeconds(now, wait),
    })
    this.report(wait === null ? 'exhausted' : 'failed')
    this.ctx.log.info({ webhook: delivery.webhook_id, delivery: delivery.id, status: base.responseStatus, attempts: delivery.attempts }, 'webhook delivery failed')
    if ('status' in response && response.status === 410) await this.disable(delivery.webhook_id, 'The endpoint answered 410 Gone', false)
    else await this.noteFailure(delivery.webhook_id, now)
  }

  /** Starts the endpoint's failing period, and disables it once that has lasted DISABLE_AFTER_SECONDS. */
  private async noteFailure(webhookId: string, now: Date): Promise<void> {
    const row = await this.ctx.db
      .updateTable('webhooks')
      .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(now)) }))
      .where('id', '=', webhookId)
      .returning(['failing_since', 'enabled'])
      .executeTakeFirst()
    if (row?.enabled && row.failing_since && now.getTime() - new Date(row.failing_since).getTime() >= DISABLE_AFTER_SECONDS * 1000) {
      await this.disable(webhookId, 'Every delivery failed for 5 days', true)
    }
  }

  /** Disables an endpoint with its reason, records it, and (after 5 days of failures) e-mails every active admin. */
  private async disable(webhookId: string, reason: string, tellAdmins: boolean): Promise<void> {
    await commitChange(this.ctx, async (c) => {
      const disabled = await c.trx
        .updateTable('webhooks')
        .set({ enabled: false, disabled_reason: reason, updated_at: c.now })
        .where('id', '=', webhookId)
        .where('enabled', '=', true)
        .returning(['id', 'url'])
        .executeTakeFirst()
      if (!disabled) return
      await c.record({ userId: null, kind: 'other', activity: `Disabled webhook ${disabled.url}`, details: `${disabled.id}; ${reason}`, ip: null })
      if (!tellAdmins) return
      const admins = await c.trx
        .selectFrom('users')
        .select(['email', 'name'])
        .where('role', '=', 'ADMIN')
        .where('status', '=', 'ACTIVE')
        .where('email_verified_at', 'is not', null)
        .execute()
      const link = `${this.ctx.config.appUrl}${paths.adminWebhooks}`
      for (const admin of admins) await c.mail({ template: 'webhook-disabled', lang: 'en', to: admin.email, name: admin.name, url: disabled.url, link })
    })
    this.ctx.log.warn({ webhook: webhookId, reason }, 'webhook endpoint disabled')
  }
}
