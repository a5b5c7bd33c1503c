import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { hash } from '@node-rs/argon2'
import type autocannon from 'autocannon'
import { freePort } from '../tests/support/server-process'
import { productRefreshRequest, signIn, type SignedIn } from './support/accounts'
import { cannon } from './support/cannon'
import { type OpenLoopResult, type RequestSpec, SenderProcess } from './support/open-loop'
import { machineLine, processCpuMs, startServer } from './support/server'
import { PASSWORD, prepareEngine } from './oidc'

/**
 * Automating Accounts (contract section 11), on PostgreSQL, the server in its own process:
 *
 *   - client credentials grants per second at `POST /oidc/token` (a service application,
 *     client_secret_basic, an opaque access token for `APP_URL/api` stored in the database),
 *     target >= 1,000/s, beside the product's own `POST /api/auth/refresh-token`, taking turns;
 *   - `GET /api/admin/users/:id` with an API key at 1,000 requests a second sent evenly from a
 *     process of its own (target p99 < 10 ms), beside the same call with an admin's access token
 *     and with a client-credentials access token, taking turns.
 *
 * Throttling is off (RATE_LIMIT=off) as in the other benchmarks: 1,000 calls a second of one key is
 * 50 times API_RATE_LIMIT's default, which would answer 429 after the first 1,200.
 */
const DATABASE = 'accounts_automation_bench'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = 32
const TARGET_GRANTS_PER_SECOND = 1000
const TARGET_KEY_P99_MS = 10

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Turn {
  answers: number
  seconds: number
  failed: number
  serverCpuMs: number
  postgresCpuMs: number
  latencies: { p50: number; p99: number }[]
}

const emptyTurn = (): Turn => ({ answers: 0, seconds: 0, failed: 0, serverCpuMs: 0, postgresCpuMs: 0, latencies: [] })

async function adminCall<T>(base: string, admin: SignedIn, method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${admin.accessToken}`, 'x-csrf-token': admin.csrfToken, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${await response.text()}`)
  return ((await response.json()) as { data: T }).data
}

export async function run(): Promise<string> {
  const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  const prepared = await prepareEngine('postgres', passwordHash, DATABASE)
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const server = await startServer({ ...prepared.env, PORT: String(port), APP_URL: base, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' })
  const sender = await SenderProcess.start()
  try {
    // The admin registers a service application with users:read and makes it a key, as Admin → Applications does.
    const admin = await signIn(base, 'bench0@example.com', PASSWORD)
    const { application, clientSecret } = await adminCall<{ application: { id: string }; clientSecret: string }>(base, admin, 'POST', '/api/admin/applications', {
      name: 'Bench Payroll Sync',
      type: 'service',
      scopes: ['users:read'],
    })
    const { secret: apiKey } = await adminCall<{ secret: string }>(base, admin, 'POST', `/api/admin/applications/${application.id}/keys`, { name: 'Bench key' })
    const basic = `Basic ${Buffer.from(`${application.id}:${clientSecret}`).toString('base64')}`
    const grantBody = new URLSearchParams({ grant_type: 'client_credentials', scope: 'users:read', resource: `${base}/api` }).toString()
    const grant = async () => {
      const response = await fetch(`${base}/oidc/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: grantBody,
      })
      if (response.status !== 200) throw new Error(`the client credentials grant answered ${response.status}: ${await response.text()}`)
      return ((await response.json()) as { access_token: string }).access_token
    }
    const userIds = (await adminCall<{ users: { id: string }[] }>(base, admin, 'GET', '/api/admin/users?limit=50')).users.map((user) => user.id)
    // Each credential must answer before it is measured.
    const machineToken = await grant()
    for (const bearer of [apiKey, machineToken, admin.accessToken]) {
      const response = await fetch(`${base}/api/admin/users/${userIds[0]}`, { headers: { authorization: `Bearer ${bearer}` } })
      if (response.status !== 200) throw new Error(`GET /api/admin/users/:id answered ${response.status}: ${await response.text()}`)
    }

    const productPool: string[] = []
    let nextEmail = 1
    const topUpProduct = async () => {
      const missing = 64 - productPool.length
      const sessions = await Promise.all(Array.from({ length: missing }, () => signIn(base, `bench${(nextEmail++ % 300) + 1}@example.com`, PASSWORD)))
      productPool.push(...sessions.map((session) => session.refreshToken))
    }
    const grantLoad = (seconds: number) =>
      cannon({
        url: `${base}/oidc/token`,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [{ method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: grantBody }],
      })
    const refreshLoad = (seconds: number) =>
      cannon({ url: `${base}/api/auth/refresh-token`, connections: CONNECTIONS, duration: seconds, requests: [productRefreshRequest(productPool)] })

    const pid = server.child.pid!
    let backends = await prepared.backends()
    const postgresCpu = () => backends.reduce((sum, backend) => sum + processCpuMs(backend), 0)
    const measured = async (into: Turn, load: () => Promise<autocannon.Result>) => {
      const before = { server: processCpuMs(pid), postgres: postgresCpu(), at: performance.now() }
      const result = await load()
      const seconds = (performance.now() - before.at) / 1000
      await pause(500)
      into.answers += result['2xx']
      into.seconds += seconds
      into.failed += result.non2xx + result.errors + result.timeouts
      into.serverCpuMs += processCpuMs(pid) - before.server
      into.postgresCpuMs += postgresCpu() - before.postgres
      into.latencies.push({ p50: result.latency.p50, p99: result.latency.p99 })
    }

    console.log('warming up...')
    await topUpProduct()
    await grantLoad(2)
    await refreshLoad(2)
    const load: number[] = [os.loadavg()[0]!]
    const grants = emptyTurn()
    const refreshes = emptyTurn()
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`grants and refreshes, round ${round + 1} of ${ROUNDS}...`)
      backends = await prepared.backends()
      await measured(grants, () => grantLoad(SECONDS))
      await topUpProduct()
      await measured(refreshes, () => refreshLoad(SECONDS))
      await pause(1000)
    }

    console.log('GET /api/admin/users/:id at 1,000 requests per second...')
    // A fresh admin session: the first one's access token may be near its end by now.
    const person = await signIn(base, 'bench0@example.com', PASSWORD)
    const machine = await grant()
    const calls = (bearer: string): RequestSpec[] => userIds.map((id) => ({ path: `/api/admin/users/${id}`, headers: { authorization: `Bearer ${bearer}` } }))
    const kinds = [
      {
        label: 'API key (`acc_sk_…`, looked up by its hash)',
        requests: calls(apiKey),
        runs: [] as OpenLoopResult[],
        target: true,
        answers: 0,
        serverCpuMs: 0,
        postgresCpuMs: 0,
      },
      {
        label: "An admin's access token (the product's session check)",
        requests: calls(person.accessToken),
        runs: [] as OpenLoopResult[],
        target: false,
        answers: 0,
        serverCpuMs: 0,
        postgresCpuMs: 0,
      },
      {
        label: 'A client-credentials access token (the stored token looked up)',
        requests: calls(machine),
        runs: [] as OpenLoopResult[],
        target: false,
        answers: 0,
        serverCpuMs: 0,
        postgresCpuMs: 0,
      },
    ]
    const openLoad = (requests: RequestSpec[], seconds: number) => sender.run({ url: base, rate: 1000, seconds, connections: 20, requests })
    for (const kind of kinds) await openLoad(kind.requests, 2)
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of kinds) {
        backends = await prepared.backends()
        const before = { server: processCpuMs(pid), postgres: postgresCpu() }
        const result = await openLoad(kind.requests, SECONDS)
        await pause(500)
        kind.runs.push(result)
        kind.serverCpuMs += processCpuMs(pid) - before.server
        kind.postgresCpuMs += postgresCpu() - before.postgres
        kind.answers += result.ok
      }
    }
    load.push(os.loadavg()[0]!)

    const rate = (turn: Turn) => turn.answers / Math.max(turn.seconds, 0.001)
    const perAnswer = (turn: Turn, ms: number) => fmt(ms / Math.max(1, turn.answers), 2)
    const latency = (turn: Turn) => `${median(turn.latencies.map((l) => l.p50))} / ${median(turn.latencies.map((l) => l.p99))}`
    const throughputRow = (label: string, turn: Turn, target?: string, met?: boolean) =>
      `| ${label} | ${fmt(rate(turn))} | ${latency(turn)} | ${perAnswer(turn, turn.serverCpuMs)} | ${perAnswer(turn, turn.postgresCpuMs)} | ${turn.failed} | ${target ?? ''} | ${met === undefined ? '' : met ? 'met' : 'NOT met'} |`
    const medianRun = (runs: OpenLoopResult[]) => [...runs].sort((a, b) => a.latency.p99 - b.latency.p99)[Math.floor(runs.length / 2)]!
    const openRow = (kind: (typeof kinds)[number]) => {
      const chosen = medianRun(kind.runs)
      const { p50, p90, p99, p999 } = chosen.latency
      const met = p99 < TARGET_KEY_P99_MS
      const cpu = (ms: number) => fmt(ms / Math.max(1, kind.answers), 2)
      return `| ${kind.label} | ${fmt(chosen.answeredPerSecond)} | ${p50} / ${p90} / ${p99} / ${p999} | ${kind.runs.map((r) => r.latency.p99).join(', ')} | ${cpu(kind.serverCpuMs)} | ${cpu(kind.postgresCpuMs)} | ${kind.runs.reduce((n, r) => n + r.non2xx + r.errors, 0)} | ${kind.target ? `p99 < ${TARGET_KEY_P99_MS}` : ''} | ${kind.target ? (met ? 'met' : 'NOT met') : ''} |`
    }
    const key = medianRun(kinds[0]!.runs)
    return [
      '# Automating Accounts',
      '',
      `Run by \`npm run bench -- automation\` on ${new Date().toISOString().slice(0, 10)}: ${machineLine()}, PostgreSQL`,
      `(${fmt(rate(grants))} client credentials grants a second; an API-key call's p99 ${key.latency.p99} ms at 1,000 a second).`,
      `Load average ${fmt(load[0]!, 1)} when the measurements began, ${fmt(load[1]!, 1)} at the end: the machine is shared, and`,
      'a load average above its two cores means every figure here is a floor, not what the product does alone.',
      '',
      'The server in its own process (`src/server/main.ts`, RATE_LIMIT=off, LOG_LEVEL=warn: 1,000 calls a second of one key',
      "is 50 times API_RATE_LIMIT's default); autocannon in the benchmark process, the open-loop sender in a small one of its",
      'own. One service application with `users:read` and a client secret (client_secret_basic), registered with one API',
      'key through the admin API, as Admin → Applications does; 300 accounts. The server CPU per answer is read from /proc.',
      '',
      `## Client credentials grants beside the product's refresh`,
      '',
      `${CONNECTIONS} connections, ${ROUNDS} turns of ${SECONDS} s each, taking turns. Each grant is a new opaque access token for`,
      '`APP_URL/api`, stored in the database (decision 0501: checked there at every call); the product refresh presents the',
      'refresh token its last answer gave (64 sessions).',
      '',
      '| Call | Answers/s | Latency p50 / p99 (median turn), ms | Server CPU per answer, ms | PostgreSQL CPU per answer, ms | Failed | Target | |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      throughputRow(
        'Client credentials grant, `POST /oidc/token` (client_secret_basic, `scope=users:read`)',
        grants,
        `>= ${fmt(TARGET_GRANTS_PER_SECOND)}/s`,
        rate(grants) >= TARGET_GRANTS_PER_SECOND,
      ),
      throughputRow("The product's own refresh, `POST /api/auth/refresh-token`", refreshes),
      '',
      '## `GET /api/admin/users/:id` at 1,000 requests a second',
      '',
      `Sent evenly (\`bench/support/open-loop.ts\`, from a process of its own, 20 connections) over ${userIds.length} accounts,`,
      `${ROUNDS} runs of ${SECONDS} s each per credential, taking turns; the median run by p99, and the CPU per answer over all runs`,
      '(what each call costs whatever else the machine runs; the latencies are what it answered in beside that):',
      '',
      '| Credential | Answered/s | p50 / p90 / p99 / p99.9, ms | p99 of each run, ms | Server CPU per answer, ms | PostgreSQL CPU per answer, ms | Failed | Target | |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...kinds.map(openRow),
      '',
      '## Where the time goes',
      '',
      "- An API key: its checksum is checked without the database, then one indexed lookup by the key's SHA-256 with its",
      "  application (decision 0501); `lastUsedAt` is written at most once a minute (decision 0502). An admin's access",
      "  token is an HMAC check and the session's lookup; a client-credentials token is the engine's stored token looked up.",
      '- A client credentials grant is the protocol engine (`oidc-provider` on Koa inside Fastify): client authentication',
      "  (the application read from the database, its secret compared), the token's payload written, the answer; no ID token",
      '  and no refresh token. The product refresh is one function call in the database.',
    ].join('\n')
  } finally {
    await sender.stop()
    await server.stop()
    await prepared.cleanup()
  }
}
