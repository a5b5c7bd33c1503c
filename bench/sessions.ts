import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { hash } from '@node-rs/argon2'
import { addSeconds } from '~server/clock'
import { SEEN_DEVICES_SECONDS } from '~server/auth/sessions'
import { openDatabase } from '~server/db/database'
import { listLiveSessions, userAgentsUsedSince } from '~server/data/devices/sessions'
import { seedBenchUsers } from './support/accounts'
import { dropDatabase, machineLine, processCpuMs, query, recreateDatabase, startServer } from './support/server'

/**
 * Signed-in devices on PostgreSQL: `GET /auth/sessions` for an account with 100 live sessions
 * (and 100 ended ones, which the list must skip), among 2,000 other accounts with 20 sessions
 * each. Target: p95 < 5 ms through HTTP, one request at a time (no queueing), the session check
 * included. Beside it, `GET /auth/me` (the session check alone) on the same connection, and at
 * the database the list's query and the new-sign-in notice's one query (what a sign-in pays for
 * the notice). A short run: about half a minute.
 */
const DATABASE = 'accounts_bench_sessions'
const PASSWORD = 'Bench-Password-42!'
const OTHER_USERS = 500
const SESSIONS_PER_OTHER = 20
const LIVE = 100
const ENDED = 100
const HTTP_REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000)
const DB_REPEATS = 500
const TARGET_P95_MS = 5

const USER_AGENTS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0',
]

interface Stats {
  n: number
  p50: number
  p95: number
  p99: number
  max: number
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1)! }
}

const ms = (n: number) => n.toFixed(2)
const row = (name: string, s: Stats, target?: number) =>
  `| ${name} | ${s.n} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} | ${target ? `< ${target}` : ''} | ${target ? (s.p95 < target ? 'met' : 'MISSED') : ''} |`

async function timeHttp(url: string, token: string, count: number): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
    await response.arrayBuffer()
    if (!response.ok) throw new Error(`${url}: ${response.status}`)
    samples.push(performance.now() - start)
  }
  return samples
}

async function timeDb(count: number, run: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    await run()
    samples.push(performance.now() - start)
  }
  return samples
}

export async function run(): Promise<string> {
  const url = await recreateDatabase(DATABASE)
  const passwordHash = await hash(PASSWORD)
  const others = await seedBenchUsers(url, passwordHash, OTHER_USERS + 1)
  const target = others.pop()!
  const now = new Date()
  // Sessions signed in over the last 30 days; the ended ones ended within the last 30.
  await query(
    url,
    [
      `INSERT INTO sessions (user_id, created_at, last_refreshed_at, idle_expires_at, expires_at, ip_address, user_agent)
       SELECT u.id, $1::timestamptz - (n || ' hours')::interval, $1::timestamptz - (n || ' minutes')::interval,
              $1::timestamptz + interval '7 days', $1::timestamptz + interval '30 days', '203.0.113.' || (n % 250), ($2::text[])[1 + n % 5]
       FROM users u, generate_series(1, $3::int) AS n WHERE u.role = 'CLIENT' AND u.email <> $4`,
      [now, USER_AGENTS, SESSIONS_PER_OTHER, target],
    ],
    [
      `INSERT INTO sessions (user_id, created_at, last_refreshed_at, idle_expires_at, expires_at, ip_address, user_agent, revoked_at, revoked_reason)
       SELECT u.id, $1::timestamptz - (n || ' hours')::interval, $1::timestamptz - (n || ' minutes')::interval,
              $1::timestamptz + interval '7 days', $1::timestamptz + interval '30 days', '198.51.100.' || (n % 250), ($2::text[])[1 + n % 5],
              CASE WHEN n > $3::int THEN $1::timestamptz - (n || ' minutes')::interval END, CASE WHEN n > $3::int THEN 'logout' END
       FROM users u, generate_series(1, $3::int + $4::int) AS n WHERE u.email = $5`,
      [now, USER_AGENTS, LIVE - 1, ENDED, target],
    ],
    ['ANALYZE'],
  )

  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' })
  const handle = await openDatabase({ url, poolSize: 1 })
  try {
    const response = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENTS[0]! },
      body: JSON.stringify({ email: target, password: PASSWORD }),
    })
    if (!response.ok) throw new Error(`sign-in failed: ${response.status}`)
    const { accessToken, user } = ((await response.json()) as { data: { accessToken: string; user: { id: string } } }).data
    const listUrl = `${server.url}/api/auth/sessions`
    const meUrl = `${server.url}/api/auth/me`
    const listed = (await (await fetch(listUrl, { headers: { authorization: `Bearer ${accessToken}` } })).json()) as { data: { sessions: unknown[] } }
    const bytes = JSON.stringify(listed).length
    if (listed.data.sessions.length !== LIVE) throw new Error(`expected ${LIVE} live sessions, listed ${listed.data.sessions.length}`)

    // Warm-up: compiled code, pooled connections, cached plans.
    await timeHttp(listUrl, accessToken, 300)
    await timeHttp(meUrl, accessToken, 300)
    // Alternating halves, so that a slow moment of the shared machine falls on both alike.
    // The server's own CPU time per request too: latency on a shared machine also counts the
    // time other processes held the cores, CPU time does not.
    const list: number[] = []
    const me: number[] = []
    const cpu = { list: 0, me: 0 }
    const pid = server.child.pid!
    const load = os.loadavg()[0]!
    for (let round = 0; round < 4; round++) {
      let before = processCpuMs(pid)
      list.push(...(await timeHttp(listUrl, accessToken, HTTP_REQUESTS / 4)))
      cpu.list += processCpuMs(pid) - before
      before = processCpuMs(pid)
      me.push(...(await timeHttp(meUrl, accessToken, HTTP_REQUESTS / 4)))
      cpu.me += processCpuMs(pid) - before
    }

    const since = addSeconds(new Date(), -SEEN_DEVICES_SECONDS)
    await timeDb(50, () => listLiveSessions(handle.db, user.id, new Date()))
    const listQuery = await timeDb(DB_REPEATS, () => listLiveSessions(handle.db, user.id, new Date()))
    await timeDb(50, () => userAgentsUsedSince(handle.db, user.id, since))
    const noticeQuery = await timeDb(DB_REPEATS, () => userAgentsUsedSince(handle.db, user.id, since))

    const date = new Date().toISOString().slice(0, 10)
    return `# Signed-in devices

Run by \`npm run bench -- sessions\` on ${date}: ${machineLine()}; load average ${load.toFixed(1)} when the
measurement began (the machine is shared: latencies include time other processes held the cores).
PostgreSQL on the same machine (default settings). The account measured has ${LIVE} live sessions and ${ENDED} ended ones
(kept 90 days for the new-sign-in notice, docs/decisions/0311), among ${OTHER_USERS} other accounts with ${SESSIONS_PER_OTHER} sessions each
(${OTHER_USERS * SESSIONS_PER_OTHER + LIVE + ENDED} sessions in all). The list answer is ${bytes.toLocaleString('en-US')} bytes.

## Through HTTP

The server (\`src/server/main.ts\`, RATE_LIMIT=off, LOG_LEVEL=warn) in its own process, one request at a time
over keep-alive from this process (\`fetch\`), after 300 unmeasured requests of each; the two calls took turns
in four rounds. Each time includes the session check every signed-in call passes. In ms:

| Call | Requests | p50 | p95 | p99 | max | Target p95 | |
| --- | --- | --- | --- | --- | --- | --- | --- |
${row(`GET /auth/sessions (${LIVE} live sessions)`, stats(list), TARGET_P95_MS)}
${row('GET /auth/me (the session check alone, for comparison)', stats(me))}

Server CPU time per request (user + system of the server process, /proc): GET /auth/sessions ${ms(cpu.list / list.length)} ms,
GET /auth/me ${ms(cpu.me / me.length)} ms (10 ms clock ticks over ${HTTP_REQUESTS / 2} requests each).

Beyond the session check, the list costs ${ms(stats(list).p50 - stats(me).p50)} ms at the median and
${ms((cpu.list - cpu.me) / list.length)} ms of server CPU per request. On a loaded machine the p95 of both calls is mostly
time spent waiting for a core (compare the two p95s); the target is judged on the list's own p95 all the same.

## At the database

The data functions themselves through one connection, ${DB_REPEATS} times after 50 unmeasured runs, in ms:

| Query | Runs | p50 | p95 | p99 | max | | |
| --- | --- | --- | --- | --- | --- | --- | --- |
${row('The live sessions, most recently used first (listLiveSessions)', stats(listQuery))}
${row('The new-sign-in notice: User-Agents used in 90 days (userAgentsUsedSince), paid once per sign-in', stats(noticeQuery))}
`
  } finally {
    await handle.close()
    await server.stop()
    await dropDatabase(DATABASE)
  }
}
