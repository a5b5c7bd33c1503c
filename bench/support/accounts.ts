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
