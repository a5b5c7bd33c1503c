import crypto from 'node:crypto'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { paths } from '~shared/paths'
import { addSeconds } from '~server/clock'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { type AttemptOutcome, type LeasedDelivery, leaseDueDeliveries, recordAttempts } from '~server/data/webhooks/deliveries'
import { eventBody } from '~server/data/webhooks/events'
import type { WebhookOutcome } from '~server/metrics/metrics'
import { Runner } from './runner'
import { postWebhook, WEBHOOK_TIMEOUT_MS, type WebhookResponse } from './webhook-request'

/**
 * Delivers webhooks (contract section 12, decisions 0522 and 0526), on the shared runner. Each pass
 * first writes the outcomes of the attempts that ended since the last one (one statement), then
 * leases due deliveries up to the free places of this instance (IN_FLIGHT in all, and per endpoint
 * its own limit: PER_ENDPOINT to begin with and whenever its receiver is slow, growing up to
 * MAX_PER_ENDPOINT while it answers fast) and starts them without waiting, a few at a time with a
 * turn of the event loop between, so that requests are answered meanwhile: a receiver that takes
 * its 15 seconds holds up no other endpoint. A change's commit wakes a pass within 100 ms, which
 * the changes meanwhile share (decision 0567). A finished delivery wakes the runner for the next
 * within 10 ms when the last pass filled places, so more may be due; when it took everything due,
 * a finished delivery only has its outcome written, within 250 ms or by the next pass (decision 0563).
 *
 * Signed as Standard Webhooks says (`webhook-id` the event's id, the same on every attempt;
 * `webhook-timestamp` the attempt's time; `webhook-signature` one `v1,<base64 HMAC-SHA256 of
 * id.timestamp.body>` per secret that signs, two for 24 hours after a rotation), by Node's HMAC
 * with each endpoint's key opened once and kept (decision 0526); the `standardwebhooks` package
 * verifies it in the tests.
 */
const POLL_MS = 2_000
/** The places an endpoint starts with, and keeps while its receiver answers slowly. */
export const PER_ENDPOINT = 4
/** The most an endpoint that answers fast may have in flight from one instance. */
export const MAX_PER_ENDPOINT = 32
/**
 * An answer within this long counts as fast: the endpoint gains a place; a slower one (or none)
 * halves them. Measured here, so it includes our own event loop's delay on a busy server: a
 * shorter line counted a fast receiver's answers as slow under load (decision 0526).
 */
const FAST_ANSWER_MS = 1000
const IN_FLIGHT = 128
/** An attempt's end wakes a pass this soon: the ends within it share the pass that fills their places. */
const WAKE_MS = 10
/**
 * A change's events wait this long for others to share their pass (decision 0567): at 40 changes
 * a second, four changes' deliveries are leased by one statement instead of four.
 */
const GATHER_MS = 100
/**
 * The longest an ended attempt's outcome waits to be written when nothing else writes it sooner (a
 * pass does, first): far within its lease, so that no other instance sends it again meanwhile.
 */
const OUTCOME_WAIT_MS = 250
/** Attempts started between two turns of the event loop. */
const START_BATCH = 16
/** Longer than an attempt can take: a lease that runs out means the instance died on the way. */
const LEASE_SECONDS = Math.ceil(WEBHOOK_TIMEOUT_MS / 1000) * 4
/** Opened signing keys kept at most (an endpoint has one, two during a rotation). */
const KEYS_KEPT = 1_000

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

/** An endpoint's places after an answer: one more after a fast one, half after a slow one or none (within PER_ENDPOINT and MAX_PER_ENDPOINT). */
export function nextPlaces(limit: number, fast: boolean): number {
  return fast ? Math.min(MAX_PER_ENDPOINT, limit + 1) : Math.max(PER_ENDPOINT, Math.floor(limit / 2))
}

/** How many attempts an endpoint may have in flight from this instance, and how many it has. */
interface EndpointPlaces {
  limit: number
  inFlight: number
}

export class WebhookSender {
  private readonly runner: Runner
  private readonly endpoints = new Map<string, EndpointPlaces>()
  private readonly attempts = new Set<Promise<void>>()
  /** Outcomes of ended attempts, written by the next pass (or `settled`) in one statement. */
  private outcomes: AttemptOutcome[] = []
  /** Signing keys opened from their sealed form, by the sealed bytes (base64). */
  private readonly keys = new Map<string, crypto.KeyObject>()
  private wake: NodeJS.Timeout | undefined
  /** When the pending wake-up runs (Date.now()), so that a sooner one can take its place. */
  private wakeAt = 0
  /**
   * The last pass filled places (the instance's, or an endpoint's, or found an endpoint with none
   * free), so more may be due than it took: an attempt's end runs the next pass soon. Otherwise
   * everything due was taken, and an attempt's end only has its outcome written; what becomes due
   * later wakes a pass itself (a change's commit) or waits for the poll (a retry's time).
   */
  private mayHaveMore = true
  private outcomeTimer: NodeJS.Timeout | undefined
  private writingSoon: Promise<void> | undefined
  private stopped = false
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

  /** A change committed events to deliver: a pass within GATHER_MS, shared with the changes after it. */
  eventsQueued(): void {
    this.kick(GATHER_MS)
  }

  /** Runs a pass within `ms`, or sooner if one is already due sooner: the wake-ups meanwhile share it. */
  kick(ms = WAKE_MS): void {
    const at = Date.now() + ms
    if (this.wake && this.wakeAt <= at) return
    clearTimeout(this.wake)
    this.wakeAt = at
    this.wake = setTimeout(() => {
      this.wake = undefined
      void this.runner.kick()
    }, ms)
  }

  /** Delivers everything due, attempts in flight included (tests). */
  drain(): Promise<number> {
    return this.runner.drain()
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.wake)
    clearTimeout(this.outcomeTimer)
    await this.writingSoon
    await this.runner.stop()
  }

  /** Writes the outcomes gathered within OUTCOME_WAIT_MS, unless a pass writes them first. */
  private writeOutcomesSoon(): void {
    if (this.outcomeTimer || this.stopped) return
    this.outcomeTimer = setTimeout(() => {
      this.outcomeTimer = undefined
      this.writingSoon = this.writeOutcomes()
        .catch((error: unknown) => {
          // Kept for the next try (their leases hold meanwhile).
          this.ctx.log.warn({ err: error }, 'webhook outcomes not written')
          this.writeOutcomesSoon()
        })
        .finally(() => {
          this.writingSoon = undefined
        })
    }, OUTCOME_WAIT_MS)
    this.outcomeTimer.unref()
  }

  /** Waits for the attempts in flight and writes their outcomes; answers whether there were any. */
  private async settled(): Promise<boolean> {
    const waited = this.attempts.size > 0
    while (this.attempts.size > 0) await Promise.all([...this.attempts])
    await this.writeOutcomes()
    return waited
  }

  /** Writes the outcomes gathered so far; on failure keeps them for the next pass (their leases hold meanwhile). */
  private async writeOutcomes(): Promise<void> {
    if (this.outcomes.length === 0) return
    const batch = this.outcomes
    this.outcomes = []
    try {
      await recordAttempts(this.ctx.db, batch)
    } catch (error) {
      this.outcomes = [...batch, ...this.outcomes]
      throw error
    }
  }

  private async pass(): Promise<number> {
    let total = 0
    const room = new Map<string, number>()
    for (const [id, places] of this.endpoints) {
      total += places.inFlight
      room.set(id, places.limit - places.inFlight)
    }
    const now = this.ctx.clock()
    let leased: LeasedDelivery[]
    try {
      await this.writeOutcomes()
      leased = await leaseDueDeliveries(this.ctx.db, {
        now,
        leaseUntil: addSeconds(now, LEASE_SECONDS),
        limit: IN_FLIGHT - total,
        perEndpoint: PER_ENDPOINT,
        room,
      })
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'webhook deliveries unavailable')
      return 0
    }
    this.mayHaveMore = this.filledPlaces(leased, room, IN_FLIGHT - total)
    const bodies = new Map<string, string>()
    for (const [n, delivery] of leased.entries()) {
      // A few at a time: requests waiting for the event loop are answered between the batches.
      if (n > 0 && n % START_BATCH === 0) await nextTurn()
      let body = bodies.get(delivery.event_id)
      if (body === undefined) bodies.set(delivery.event_id, (body = eventBody(delivery)))
      const places = this.places(delivery.webhook_id)
      places.inFlight++
      const attempt: Promise<void> = this.attempt(delivery, body)
        .catch((error: unknown) => this.ctx.log.warn({ err: error, delivery: delivery.id }, 'webhook delivery failed to record'))
        .finally(() => {
          this.attempts.delete(attempt)
          places.inFlight--
          if (places.inFlight === 0 && places.limit === PER_ENDPOINT) this.endpoints.delete(delivery.webhook_id)
          if (this.mayHaveMore) this.kick()
          else this.writeOutcomesSoon()
        })
      this.attempts.add(attempt)
    }
    return leased.length
  }

  /** Whether a pass that leased `leased` out of `limit` places in all, and `room` of known endpoints', filled any. */
  private filledPlaces(leased: readonly LeasedDelivery[], room: ReadonlyMap<string, number>, limit: number): boolean {
    if (leased.length >= limit) return true
    const taken = new Map<string, number>()
    for (const delivery of leased) taken.set(delivery.webhook_id, (taken.get(delivery.webhook_id) ?? 0) + 1)
    for (const free of room.values()) if (free <= 0) return true
    for (const [id, count] of taken) if (count >= (room.get(id) ?? PER_ENDPOINT)) return true
    return false
  }

  private places(webhookId: string): EndpointPlaces {
    let places = this.endpoints.get(webhookId)
    if (!places) this.endpoints.set(webhookId, (places = { limit: PER_ENDPOINT, inFlight: 0 }))
    return places
  }

  private adapt(webhookId: string, fast: boolean): void {
    const places = this.places(webhookId)
    places.limit = nextPlaces(places.limit, fast)
  }

  /** An endpoint's signing key, opened from its sealed form once and kept. */
  private key(sealed: Buffer): crypto.KeyObject {
    const name = sealed.toString('base64')
    let key = this.keys.get(name)
    if (key) return key
    const secret = this.ctx.webhookSealer.open(sealed)
    if (!secret) throw new Error('A webhook secret sealed under another AUTH_SECRET cannot be opened')
    key = crypto.createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    if (this.keys.size >= KEYS_KEPT) this.keys.clear()
    this.keys.set(name, key)
    return key
  }

  /** The signature header: the current secret's, and the previous one's while it still signs. */
  private signature(delivery: LeasedDelivery, sentAt: string, body: string): string {
    const secrets = [delivery.secret]
    if (delivery.previous_secret && delivery.previous_secret_until && new Date(delivery.previous_secret_until) > this.ctx.clock()) secrets.push(delivery.previous_secret)
    const signed = `${delivery.event_id}.${sentAt}.${body}`
    return secrets.map((sealed) => `v1,${crypto.createHmac('sha256', this.key(sealed)).update(signed).digest('base64')}`).join(' ')
  }

  private async attempt(delivery: LeasedDelivery, body: string): Promise<void> {
    // The receiver compares webhook-timestamp with its own clock (5 minutes' tolerance): the wall clock's time.
    const started = Date.now()
    const sentAt = Math.floor(started / 1000).toString()
    let response: WebhookResponse
    try {
      const headers = { 'webhook-id': delivery.event_id, 'webhook-timestamp': sentAt, 'webhook-signature': this.signature(delivery, sentAt, body) }
      response = await postWebhook(delivery.url, headers, body, this.timeoutMs)
    } catch (error) {
      response = { error: error instanceof Error ? error.message : String(error) }
    }
    this.adapt(delivery.webhook_id, 'status' in response && Date.now() - started < FAST_ANSWER_MS)
    const now = this.ctx.clock()
    const ok = 'status' in response && response.status >= 200 && response.status < 300
    const base = {
      id: delivery.id,
      at: now,
      responseStatus: 'status' in response ? response.status : null,
      responseBody: 'status' in response ? response.body : response.error,
    }
    if (ok) {
      this.outcomes.push({ ...base, status: 'delivered', nextAttemptAt: null })
      this.report('delivered')
      return
    }
    const throttled = 'status' in response && (response.status === 429 || response.status === 503) ? retryAfterSeconds(response.retryAfter, now) : null
    const wait = throttled ?? nextWaitSeconds(delivery.attempts)
    this.outcomes.push({ ...base, status: wait === null ? 'exhausted' : 'failed', nextAttemptAt: wait === null ? null : addSeconds(now, wait) })
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
