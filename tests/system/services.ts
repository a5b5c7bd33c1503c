import { Redis } from 'ioredis'
import pg from 'pg'

/**
 * The PostgreSQL and Redis servers that tests of several processes share: TEST_DATABASE_URL and
 * TEST_REDIS_URL when set, else this machine's usual ports. A test that needs one which cannot be
 * reached is skipped, and says why, so a fresh machine without them still passes.
 */
export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** Why PostgreSQL cannot be used, or undefined when it can. */
export async function postgresMissing(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return undefined
  } catch (error) {
    return `no PostgreSQL at ${new URL(POSTGRES_URL).host} (${(error as Error).message}); set TEST_DATABASE_URL`
  } finally {
    await client.end().catch(() => {})
  }
}

/** Why Redis cannot be used, or undefined when it can. */
export async function redisMissing(): Promise<string | undefined> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3_000 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    await redis.ping()
    return undefined
  } catch (error) {
    return `no Redis at ${new URL(REDIS_URL).host} (${(error as Error).message}); set TEST_REDIS_URL`
  } finally {
    redis.disconnect()
  }
}
