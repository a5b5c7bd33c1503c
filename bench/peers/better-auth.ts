import { betterAuth } from 'better-auth'
import { admin } from 'better-auth/plugins'
import type { Kysely } from 'kysely'
import pg from 'pg'
import { PasswordHasher } from '../../src/server/auth/password'

/**
 * Better Auth as a team would set it up beside the product for this comparison: e-mail and
 * password sign-in, the admin plugin, sessions in PostgreSQL through its Kysely adapter (given a
 * node-postgres pool, as its documentation shows), rate limiting off (as the product's
 * RATE_LIMIT=off in the benchmarks). Its scrypt hashing is replaced by the product's own hasher
 * (src/server/auth/password.ts: Argon2id 19 MiB, t=2, p=1, one hash per core at a time), so both
 * spend the same on every password.
 */
export interface BetterAuthVariant {
  /** The signed session-data cookie, trusted for `maxAge` seconds instead of reading the database. */
  cookieCache?: boolean
  /** `advanced.database.joins`: the session and its user in one joined statement instead of two. */
  joins?: boolean
}

/** How long the cookie cache trusts itself: Better Auth's default, five minutes. */
export const COOKIE_CACHE_SECONDS = 300

export function createBetterAuth(options: { baseURL: string; secret: string; database: pg.Pool | { db: Kysely<unknown>; type: 'postgres' } } & BetterAuthVariant) {
  const hasher = new PasswordHasher()
  return betterAuth({
    baseURL: options.baseURL,
    secret: options.secret,
    database: options.database,
    telemetry: { enabled: false },
    rateLimit: { enabled: false },
    emailAndPassword: {
      enabled: true,
      password: {
        hash: (password) => hasher.hash(password),
        verify: ({ hash, password }) => hasher.verify(hash, password),
      },
    },
    session: { cookieCache: { enabled: options.cookieCache === true, maxAge: COOKIE_CACHE_SECONDS } },
    advanced: { database: { joins: options.joins === true } },
    plugins: [admin()],
    logger: { level: 'error' },
  })
}

export function betterAuthPool(url: string): pg.Pool {
  return new pg.Pool({ connectionString: url, max: 10, application_name: 'better-auth-bench' })
}
