import { hash } from '@node-rs/argon2'
import autocannon from 'autocannon'
import { type SignedIn as Session, signIn } from './support/accounts'
import { dropDatabase, machineLine, query, recreateDatabase, startServer } from './support/server'

/**
 * Sustained mixed load: a few hundred connections for several minutes (LOAD_SECONDS, default
 * 180) against PostgreSQL, reads and writes of every role, with throttling ON. Passes when no
 * answer is a 5xx and the server's memory stays flat (no growth between the middle and the end).
 */
const DATABASE = 'accounts_bench_load'
const PASSWORD = 'Load-Password-42!'
const SECONDS = Number(process.env.LOAD_SECONDS ?? 180)
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 300)

async function seed(url: string): Promise<void> {
  const passwordHash = await hash(PASSWORD)
  await query(url, [
    `INSERT INTO users (name, email, password_hash, role, status, email_verified_at)
     SELECT 'Load User ' || n, 'load' || n || '@example.com', $1,
            (ARRAY['ADMIN', 'DEVELOPER', 'MODERATOR', 'CLIENT'])[1 + n % 4], 'ACTIVE', now()
     FROM generate_series(0, 399) AS n`,
    [passwordHash],
  ])
}

export async function run(): Promise<string> {
  const url = await recreateDatabase(DATABASE)
  await seed(url)
  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'on', LOG_LEVEL: 'error' })
  try {
    // load0, load4, ... are admins; load1, load5, ... developers; and so on.
    const admins = await Promise.all([0, 4, 8, 12].map((n) => signIn(server.url, `load${n}@example.com`, PASSWORD)))
    const staff = await Promise.all([1, 2, 5, 6].map((n) => signIn(server.url, `load${n}@example.com`, PASSWORD)))
    const clients = await Promise.all([3, 7, 11, 15, 19, 23].map((n) => signIn(server.url, `load${n}@example.com`, PASSWORD)))
    const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!
    const bearer = (s: Session) => ({ authorization: `Bearer ${s.accessToken}`, 'x-csrf-token': s.csrfToken })
    const json = { 'content-type': 'application/json' }
    let phone = 0

    type Req = autocannon.Request
    const get = (path: string, who: () => Session): Req => ({
      method: 'GET',
      path,
      setupRequest: (request) => ({ ...request, headers: bearer(who()) }),
    })
    const mix: Req[] = [
      get('/api/auth/me', () => pick(clients)),
      get('/api/users/profile', () => pick(clients)),
      {
        method: 'PUT',
        path: '/api/users/profile',
        setupRequest: (request) => ({
          ...request,
          headers: { ...json, ...bearer(pick(clients)) },
          body: JSON.stringify({ phone: `+1 555 ${String(phone++ % 10000).padStart(4, '0')}` }),
        }),
      },
      get('/api/activity?page=1&limit=20', () => pick(staff)),
      get('/api/admin/activity-logs?page=2&limit=20&search=log', () => pick(staff)),
      get('/api/admin/users?page=1&limit=10&search=user%201', () => pick(admins)),
      get('/api/admin/stats', () => pick(admins)),
      get('/api/auth/me', () => pick(admins)),
      // Wrong passwords and unknown addresses: answered 401 or, once throttled, 429, never 5xx.
      {
        method: 'POST',
        path: '/api/auth/login',
        setupRequest: (request) => ({
          ...request,
          headers: json,
          body: JSON.stringify({ email: `load${300 + Math.floor(Math.random() * 100)}@example.com`, password: 'Wrong-Password-1!' }),
        }),
      },
      get('/api/health', () => pick(clients)),
    ]

    const samples: { at: number; rss: number }[] = []
    const started = Date.now()
    const sampler = setInterval(() => samples.push({ at: (Date.now() - started) / 1000, rss: server.rssMiB() }), 1000)
    const result = await new Promise<autocannon.Result>((resolve, reject) =>
      autocannon({ url: server.url, connections: CONNECTIONS, duration: SECONDS, timeout: 30, requests: mix }, (error, r) => (error ? reject(error) : resolve(r))),
    )
    clearInterval(sampler)

    const at = (fraction: number) => samples[Math.min(samples.length - 1, Math.floor(samples.length * fraction))]?.rss ?? 0
    const startRss = at(0.1)
    const middleRss = at(0.5)
    const endRss = at(0.98)
    const peakRss = Math.max(...samples.map((s) => s.rss))
    const fiveXX = result['5xx']
    const stable = endRss <= middleRss * 1.15 + 20
    return [
      '# Sustained mixed load',
      '',
      `Run by \`npm run bench -- load\` on ${new Date().toISOString().slice(0, 10)}: ${machineLine()}.`,
      `PostgreSQL on the same machine, throttling on, the server in its own process, autocannon in the`,
      `benchmark process: ${CONNECTIONS} connections for ${SECONDS} s cycling through sign-in status,`,
      "profile reads and writes, own and everyone's activity (searched), user search, statistics, health",
      'and wrong-password sign-ins (which become 429s once throttled).',
      '',
      '| Measure | Result | Target |',
      '| --- | --- | --- |',
      `| Requests answered | ${result.requests.total.toLocaleString('en-US')} (${Math.round(result.requests.average)}/s) | |`,
      `| 2xx / 4xx / 5xx | ${result['2xx']} / ${result['4xx']} / ${fiveXX} | 5xx = 0: ${fiveXX === 0 ? 'met' : 'NOT met'} |`,
      `| Connection errors / timeouts | ${result.errors} / ${result.timeouts} | 0 |`,
      `| Latency p50 / p99, ms | ${result.latency.p50} / ${result.latency.p99} | |`,
      `| Server memory at 10% / 50% / 98% of the run, peak, MiB | ${startRss} / ${middleRss} / ${endRss}, ${peakRss} | stable: ${stable ? 'met' : 'NOT met'} |`,
    ].join('\n')
  } finally {
    await server.stop()
    await dropDatabase(DATABASE)
  }
}
