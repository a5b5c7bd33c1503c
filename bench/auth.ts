import os from 'node:os'
import { hash, verify } from '@node-rs/argon2'
import autocannon from 'autocannon'
import pLimit from 'p-limit'
import pg from 'pg'
import { openDatabase } from '../src/server/db/database'
import { migrateToLatest } from '../src/server/db/migrate'
import { dropDatabase, machineLine, recreateDatabase, startServer } from './support/server'

/**
 * Authentication speed on PostgreSQL, the load generator (autocannon) in this process and the
 * server in its own:
 *   - sign-in throughput against what the same hasher verifies per second here (target >= 90%);
 *   - refresh-token rotations per second (target >= 1,000);
 *   - GET /auth/me latency at 1,000 requests per second (target p99 < 10 ms);
 *   - the server's memory under 200 concurrent sign-ins (bounded: hashing concurrency is capped).
 */
const DATABASE = 'accounts_bench_auth'
const PASSWORD = 'Bench-Password-42!'
const USERS = 300
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)

type Result = autocannon.Result

function cannon(options: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)))
  })
}

async function rawHasherRate(passwordHash: string, seconds: number): Promise<number> {
  const limit = pLimit(os.availableParallelism())
  const until = Date.now() + seconds * 1000
  let done = 0
  const worker = async () => {
    while (Date.now() < until) {
      await limit(() => verify(passwordHash, PASSWORD))
      done++
    }
  }
  await Promise.all(Array.from({ length: os.availableParallelism() * 2 }, worker))
  return done / seconds
}

async function seedUsers(url: string, passwordHash: string): Promise<string[]> {
  const handle = await openDatabase({ url })
  await migrateToLatest(handle.db)
  await handle.close()
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  // One admin so start-up does not create one; then the users who sign in.
  await client.query(
    `INSERT INTO users (name, email, password_hash, role, status, email_verified_at)
     SELECT 'Bench User ' || n, 'bench' || n || '@example.com', $1,
            CASE WHEN n = 0 THEN 'ADMIN' ELSE 'CLIENT' END, 'ACTIVE', now()
     FROM generate_series(0, $2::int) AS n`,
    [passwordHash, USERS],
  )
  await client.end()
  return Array.from({ length: USERS }, (_, i) => `bench${i + 1}@example.com`)
}

async function signIn(base: string, email: string) {
  const response = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  })
  if (!response.ok) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { data: { accessToken: string; refreshToken: string } }).data
}

const ok2xx = (r: Result) => r['2xx']
const perSecond = (r: Result) => ok2xx(r) / r.duration
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

export async function run(): Promise<string> {
  const url = await recreateDatabase(DATABASE)
  const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  const emails = await seedUsers(url, passwordHash)

  console.log('raw hasher...')
  const rawRate = await rawHasherRate(passwordHash, SECONDS)

  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off' })
  const idleRss = server.rssMiB()
  try {
    let next = 0
    const nextEmail = () => emails[next++ % emails.length]!

    console.log('sign-in throughput...')
    const login = await cannon({
      url: `${server.url}/api/auth/login`,
      connections: 16,
      duration: SECONDS,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: JSON.stringify({ email: nextEmail(), password: PASSWORD }) }),
        },
      ],
    })

    console.log('refresh rate...')
    // autocannon clears its per-connection context after every request, so the live refresh
    // tokens sit in a pool: each request takes one, each answer puts its successor back.
    const pool = (await Promise.all(emails.slice(0, 64).map((email) => signIn(server.url, email)))).map((s) => s.refreshToken)
    const refresh = await cannon({
      url: `${server.url}/api/auth/refresh-token`,
      connections: 32,
      duration: SECONDS,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: JSON.stringify({ refreshToken: pool.shift() }) }),
          onResponse(status, body) {
            if (status === 200) pool.push((JSON.parse(body) as { data: { refreshToken: string } }).data.refreshToken)
          },
        },
      ],
    })

    console.log('/auth/me latency at 1,000 requests per second...')
    const meSessions = await Promise.all(emails.slice(100, 120).map((email) => signIn(server.url, email)))
    let meIndex = 0
    const me = await cannon({
      url: `${server.url}/api/auth/me`,
      connections: 20,
      overallRate: 1000,
      duration: SECONDS,
      requests: [
        {
          method: 'GET',
          setupRequest(request, raw) {
            const context = raw as Record<string, string>
            context.token ??= meSessions[meIndex++ % meSessions.length]!.accessToken
            return { ...request, headers: { ...request.headers, authorization: `Bearer ${context.token}` } }
          },
        },
      ],
    })

    console.log('memory under 200 concurrent sign-ins...')
    let peakRss = server.rssMiB()
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, server.rssMiB())), 250)
    const crowd = await cannon({
      url: `${server.url}/api/auth/login`,
      connections: 200,
      duration: SECONDS,
      timeout: 30,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: JSON.stringify({ email: nextEmail(), password: PASSWORD }) }),
        },
      ],
    })
    clearInterval(sampler)
    const afterRss = server.rssMiB()

    const loginShare = perSecond(login) / rawRate
    const rows = [
      ['Password hasher alone (Argon2id 19 MiB, t=2, p=1), verifications/s', fmt(rawRate, 1), 'reference', ''],
      ['Sign-in, successful answers/s (16 connections)', fmt(perSecond(login), 1), `>= 90% of hasher (${fmt(rawRate * 0.9, 1)})`, `${fmt(loginShare * 100, 1)}% ${loginShare >= 0.9 ? 'met' : 'NOT met'}`],
      ['Sign-in latency p50 / p99, ms', `${login.latency.p50} / ${login.latency.p99}`, '', ''],
      ['Refresh, rotations/s (32 connections, 64 sessions)', fmt(perSecond(refresh)), '>= 1,000', perSecond(refresh) >= 1000 ? 'met' : 'NOT met'],
      ['Refresh latency p50 / p99, ms', `${refresh.latency.p50} / ${refresh.latency.p99}`, '', ''],
      ['GET /auth/me at 1,000 req/s: answered/s', fmt(perSecond(me)), '1,000', ''],
      ['GET /auth/me latency p50 / p99, ms', `${me.latency.p50} / ${me.latency.p99}`, 'p99 < 10', me.latency.p99 < 10 ? 'met' : 'NOT met'],
      ['200 concurrent sign-ins: answered/s, non-2xx, errors', `${fmt(perSecond(crowd), 1)}, ${crowd.non2xx}, ${crowd.errors + crowd.timeouts}`, '', ''],
      ['Server memory idle / peak under 200 sign-ins / after, MiB', `${idleRss} / ${peakRss} / ${afterRss}`, 'bounded', peakRss < idleRss + 400 ? 'met' : 'NOT met'],
      ['Errors in the other runs (non-2xx, errors, timeouts)', `${login.non2xx + refresh.non2xx + me.non2xx}, ${login.errors + refresh.errors + me.errors}, ${login.timeouts + refresh.timeouts + me.timeouts}`, '0', ''],
    ]
    return [
      '# Authentication benchmark',
      '',
      `Run by \`npm run bench -- auth\` on ${new Date().toISOString().slice(0, 10)}: ${machineLine()}.`,
      `PostgreSQL on the same machine; the server in its own process (\`src/server/main.ts\`, RATE_LIMIT=off, LOG_LEVEL=warn);`,
      `autocannon in the benchmark process; ${SECONDS} s per measurement; ${USERS} accounts sharing one Argon2id hash.`,
      '',
      '| Measure | Result | Target | |',
      '| --- | --- | --- | --- |',
      ...rows.map((row) => `| ${row.join(' | ')} |`),
      '',
      'Sign-in is bound by Argon2id: the server runs at most one hash per core and queues the rest,',
      'so 200 concurrent sign-ins wait rather than each allocating 19 MiB at once.',
      '',
      '## Where the time goes',
      '',
      'CPU per request, read from /proc for the server process and every PostgreSQL process while',
      '`bench/support/cpu-per-request.ts` drives one endpoint (last read on 2026-11-22, quiet machine):',
      '',
      '| Request | Server CPU, ms | PostgreSQL CPU, ms |',
      '| --- | --- | --- |',
      '| Sign-in | 11.95 (of which Argon2id about 11.5) | 1.34 |',
      '| Refresh | 0.24 | 0.26 |',
      '| GET /auth/me | 0.32 | 0.17 |',
      '',
      '- Sign-in: two cores verify about 170 hashes a second alone, so 90% leaves about 1.2 ms of CPU per',
      '  sign-in for everything else: HTTP, validation, the token, PostgreSQL (the credentials read, then',
      '  one call of `start_session` writing session, refresh token and activity entry) and the load',
      '  generator, which shares the two cores. PostgreSQL alone uses 0.5 ms per sign-in when sign-ins',
      '  come one at a time and about 1.3 ms while the hashes keep both cores busy. Moving the writes',
      '  into one database function took sign-in from 66–73% to 75% of the hasher (16 connections); with',
      '  200 connections the server reaches about 85%. The rest is the price of doing those writes on',
      '  the same two cores; the target is not met on this machine.',
      '- Refresh: one call of `rotate_fresh_refresh_token`, whose statements look rows up by key. The',
      '  single-join version it replaced ran at 450/s after a burst of sign-ins, when stale statistics',
      '  made PostgreSQL plan it from `users` outwards (docs/decisions/0007).',
      '- GET /auth/me: about 0.5 ms of CPU, so 1,000 per second keep a quarter of the machine busy; the',
      '  median stays at a few milliseconds, but the slowest 1% wait behind PostgreSQL backends and the',
      '  load generator on the same two cores. The session check per request is what makes sign-out',
      '  and suspension take effect on the very next request, so it stays.',
    ].join('\n')
  } finally {
    await server.stop()
    await dropDatabase(DATABASE)
  }
}
