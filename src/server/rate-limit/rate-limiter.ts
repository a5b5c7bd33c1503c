import crypto from 'node:crypto'
import type { Clock } from '~server/clock'
import { tooManyRequests } from '~server/http/errors'
import type { RateLimitRule } from './rules'

/**
 * Counts events per rule and identity (an address, a client IP) and refuses with a 429 and
 * `Retry-After` past the rule's maximum. Identities are hashed, so the counters hold no addresses.
 * Without a store (RATE_LIMIT=off, test environments only) nothing is counted.
 */
/** Where throttling counters live (`stores.ts`). `hit` counts one more event in the key's window, atomically. */
export interface RateLimitStore {
  hit(key: string, windowSeconds: number, now: Date): Promise<{ count: number; resetAt: Date }>
  /** The key's count in its current window, without counting (null: none). */
  peek(key: string, now: Date): Promise<{ count: number; resetAt: Date } | null>
  /** Takes one event back (a sign-in that turned out to be the owner's). */
  undo(key: string): Promise<void>
  reset(key: string): Promise<void>
  /** Rejects when a store of its own (Redis) cannot be reached; the database store has none. */
  ping?(): Promise<void>
  /** Resolves once a store of its own is connected; rejects with why not when it is not within `ms`. */
  connected?(ms: number): Promise<void>
  close(): Promise<void>
}

export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore | null,
    private readonly clock: Clock,
  ) {}

  get enabled(): boolean {
    return this.store !== null
  }

  /** Counts one event; throws a 429 when it goes past the rule's maximum. */
  async consume(rule: RateLimitRule, identity: string): Promise<void> {
    if (!this.store) return
    const now = this.clock()
    const { count, resetAt } = await this.store.hit(keyOf(rule, identity), rule.windowSeconds, now)
    if (count > rule.max) throw tooManyRequests((resetAt.getTime() - now.getTime()) / 1000)
  }

  /** Throws a 429 when the rule's maximum is already reached, without counting anything. */
  async check(rule: RateLimitRule, identity: string): Promise<void> {
    if (!this.store) return
    const now = this.clock()
    const current = await this.store.peek(keyOf(rule, identity), now)
    if (current && current.count >= rule.max) throw tooManyRequests((current.resetAt.getTime() - now.getTime()) / 1000)
  }

  async undo(rule: RateLimitRule, identity: string): Promise<void> {
    await this.store?.undo(keyOf(rule, identity))
  }

  async reset(rule: RateLimitRule, identity: string): Promise<void> {
    await this.store?.reset(keyOf(rule, identity))
  }

  /** Whether counters live in a store of their own (Redis) that readiness must check. */
  get hasOwnStore(): boolean {
    return this.store?.ping !== undefined
  }

  /** Rejects when that store cannot be reached. */
  async ping(): Promise<void> {
    await this.store?.ping?.()
  }

  /** Resolves once that store is connected (at once for the database's), or rejects with why not within `ms`. */
  async storeConnected(ms: number): Promise<void> {
    await this.store?.connected?.(ms)
  }

  async close(): Promise<void> {
    await this.store?.close()
  }
}

function keyOf(rule: RateLimitRule, identity: string): string {
  const digest = crypto.createHash('sha256').update(identity.toLowerCase()).digest('base64url').slice(0, 32)
  return `${rule.name}:${digest}`
}
