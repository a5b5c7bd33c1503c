import crypto from 'node:crypto'
import type { Clock } from '../auth/clock'
import { tooManyRequests } from '../http/errors'
import type { RateLimitRule } from './rules'
import type { RateLimitStore } from './stores'

/**
 * Counts events per rule and identity (an address, a client IP) and refuses with a 429 and
 * `Retry-After` past the rule's maximum. Identities are hashed, so the counters hold no addresses.
 * Without a store (RATE_LIMIT=off, test environments only) nothing is counted.
 */
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

  async close(): Promise<void> {
    await this.store?.close()
  }
}

function keyOf(rule: RateLimitRule, identity: string): string {
  const digest = crypto.createHash('sha256').update(identity.toLowerCase()).digest('base64url').slice(0, 32)
  return `${rule.name}:${digest}`
}
