import { Redis } from 'ioredis'
import { type Kysely, sql } from 'kysely'
import type { Database } from '~server/db/types'
import { serviceUnavailable } from '~server/http/errors'
import type { RateLimitStore } from './rate-limiter'

/** The two places throttling counters can live: the database (default) or Redis (REDIS_URL). */

export class DatabaseRateLimitStore implements RateLimitStore {
  constructor(private readonly db: Kysely<Database>) {}

  async hit(key: string, windowSeconds: number, now: Date) {
    const resetAt = new Date(now.getTime() + windowSeconds * 1000)
    // One statement: concurrent hits on a key serialise on its row, so the count is exact.
    const { rows } = await sql<{ count: number; reset_at: Date }>`
      INSERT INTO rate_limits (key, count, reset_at) VALUES (${key}, 1, ${resetAt})
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN rate_limits.reset_at <= ${now} THEN 1 ELSE rate_limits.count + 1 END,
        reset_at = CASE WHEN rate_limits.reset_at <= ${now} THEN EXCLUDED.reset_at ELSE rate_limits.reset_at END
      RETURNING count, reset_at`.execute(this.db)
    const row = rows[0]!
    return { count: row.count, resetAt: row.reset_at }
  }

  async peek(key: string, now: Date) {
    const row = await this.db.selectFrom('rate_limits').select(['count', 'reset_at']).where('key', '=', key).where('reset_at', '>', now).executeTakeFirst()
    return row ? { count: row.count, resetAt: row.reset_at } : null
  }

  async undo(key: string) {
    await this.db
      .updateTable('rate_limits')
      .set({ count: sql`greatest(count - 1, 0)` })
      .where('key', '=', key)
      .execute()
  }

  async reset(key: string) {
    await this.db.deleteFrom('rate_limits').where('key', '=', key).execute()
  }

  async close() {}
}

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`

const UNDO_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 and tonumber(redis.call('GET', KEYS[1])) > 0 then
  return redis.call('DECR', KEYS[1])
end
return 0`

export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis

  constructor(
    url: string,
    private readonly prefix = 'accounts:rate:',
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })
    // Errors surface on the commands themselves (as 503s); the connection retries by itself.
    this.redis.on('error', () => {})
  }

  async hit(key: string, windowSeconds: number, now: Date) {
    const [count, ttl] = (await reachable(this.redis.eval(HIT_SCRIPT, 1, this.prefix + key, windowSeconds * 1000))) as [number, number]
    return { count, resetAt: new Date(now.getTime() + ttl) }
  }

  async peek(key: string, now: Date) {
    const [count, ttl] = (await reachable(
      this.redis
        .multi()
        .get(this.prefix + key)
        .pttl(this.prefix + key)
        .exec(),
    )) as [[Error | null, string | null], [Error | null, number]]
    if (!count[1] || ttl[1] <= 0) return null
    return { count: Number(count[1]), resetAt: new Date(now.getTime() + ttl[1]) }
  }

  async undo(key: string) {
    await reachable(this.redis.eval(UNDO_SCRIPT, 1, this.prefix + key))
  }

  async reset(key: string) {
    await reachable(this.redis.del(this.prefix + key))
  }

  async ping() {
    await reachable(this.redis.ping())
  }

  async connected(ms: number) {
    if (this.redis.status === 'ready') return
    let lastError: Error | undefined
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => (lastError = error)
      const onReady = () => {
        stop()
        resolve()
      }
      const timer = setTimeout(() => {
        stop()
        reject(lastError ?? new Error(`no connection within ${ms / 1000} s`))
      }, ms)
      timer.unref()
      const stop = () => {
        clearTimeout(timer)
        this.redis.off('ready', onReady).off('error', onError)
      }
      this.redis.on('ready', onReady).on('error', onError)
    })
  }

  async close() {
    this.redis.disconnect()
  }
}

/**
 * Redis out of reach is answered like a database out of reach: a prompt 503 with Retry-After, and
 * no attempt goes uncounted (throttled calls fail closed). Not a 500: nothing is wrong with the
 * request or the code.
 */
async function reachable<T>(command: Promise<T>): Promise<T> {
  try {
    return await command
  } catch (error) {
    throw Object.assign(serviceUnavailable(), { cause: error })
  }
}
