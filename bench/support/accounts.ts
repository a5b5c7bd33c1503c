import type autocannon from 'autocannon'
import { query } from './server'

/** Accounts the benchmarks sign in with, and signing in through the API. */

export interface SignedIn {
  accessToken: string
  refreshToken: string
  csrfToken: string
}

/**
 * `count` ACTIVE, verified clients bench1@example.com ... bench<count>@example.com, and bench0 an
 * admin (so start-up does not create one), all with the same password hash. Returns the clients'
 * addresses.
 */
export async function seedBenchUsers(url: string, passwordHash: string, count: number): Promise<string[]> {
  await query(url, [
    `INSERT INTO users (name, email, password_hash, role, status, email_verified_at)
     SELECT 'Bench User ' || n, 'bench' || n || '@example.com', $1,
            CASE WHEN n = 0 THEN 'ADMIN' ELSE 'CLIENT' END, 'ACTIVE', now()
     FROM generate_series(0, $2::int) AS n`,
    [passwordHash, count],
  ])
  return Array.from({ length: count }, (_, i) => `bench${i + 1}@example.com`)
}

export async function signIn(base: string, email: string, password: string): Promise<SignedIn> {
  const response = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  if (!response.ok) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { data: SignedIn }).data
}

/** autocannon's request for sign-ins at `POST /api/auth/login`, taking these accounts in turn. */
export function signInRequest(emails: string[], password: string, first = 0): autocannon.Request {
  let next = first
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: JSON.stringify({ email: emails[next++ % emails.length], password }) }),
  }
}

/**
 * autocannon's request for the product's refresh at `POST /api/auth/refresh-token`: each request
 * takes a refresh token from the pool and its answer puts the new one back, so that two requests
 * never race for one session.
 */
export function productRefreshRequest(pool: string[]): autocannon.Request {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: JSON.stringify({ refreshToken: pool.shift() }) }),
    onResponse(status, body) {
      if (status === 200) pool.push((JSON.parse(body) as { data: { refreshToken: string } }).data.refreshToken)
    },
  }
}
