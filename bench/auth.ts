import os from 'node:os'
import { hash, verify } from '@node-rs/argon2'
import type autocannon from 'autocannon'
import pLimit from 'p-limit'
import { productRefreshRequest, seedBenchUsers, signIn } from './support/accounts'
import { cannon } from './support/cannon'
import { type OpenLoopResult, SenderProcess } from './support/open-loop'
import { dropDatabase, forkSupport, machineLine, machineTime, nextMessage, recreateDatabase, startBareServer, startServer } from './support/server'

/**
 * Authentication speed on PostgreSQL, the load generator (autocannon) in this process and the
 * server in its own:
 *   - sign-in throughput against what the same hasher verifies per second here (target >= 90%),
 *     beside two bare servers that show what this machine allows any server;
 *   - refresh-token rotations per second (target >= 1,000);
 *   - GET /auth/me latency at 1,000 requests per second (target p99 < 10 ms);
 *   - the server's memory under 200 concurrent sign-ins (bounded: hashing concurrency is capped).
 */
const DATABASE = 'accounts_bench_auth'
const PASSWORD = 'Bench-Password-42!'
const USERS = 300
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)
/** Each measurement follows a few seconds of the same load, unmeasured: compiled code, pooled connections, cached plans. */
const WARM_UP_SECONDS = 3
const ROUNDS = 4

type Result = autocannon.Result

/** The hasher alone in this process, one verification per core at a time: as the server hashes. */
async function inProcessHasherRate(passwordHash: string, seconds: number): Promise<number> {
  const limit = pLimit(os.availableParallelism())
  const start = Date.now()
  const until = start + seconds * 1000
  let done = 0
  const worker = async () => {
    while (Date.now() < until) {
      await limit(() => verify(passwordHash, PASSWORD))
      done++
    }
  }
  await Promise.all(Array.from({ length: os.availableParallelism() * 2 }, worker))
  return (done * 1000) / (Date.now() - start)
}

/** The hasher alone in one process per core, each verifying one at a time: no two share a memory map. */
async function perCoreHasherRate(passwordHash: string, seconds: number): Promise<number> {
  const children = Array.from({ length: os.availableParallelism() }, () => forkSupport('hasher-loop.ts'))
  // All loaded before any starts, so that none runs alone for a while.
  await Promise.all(children.map((child) => nextMessage(child)))
  const rates = children.map((child) => nextMessage<number>(child))
  for (const child of children) child.send({ hash: passwordHash, password: PASSWORD, seconds })
  return (await Promise.all(rates)).reduce((sum, rate) => sum + rate, 0)
}

const ok2xx = (r: Result) => r['2xx']
const perSecond = (r: Result) => ok2xx(r) / r.duration
const sum = <T>(items: T[], of: (item: T) => number) => items.reduce((total, item) => total + of(item), 0)
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

export async function run(): Promise<string> {
  const url = await recreateDatabase(DATABASE)
  const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  const emails = await seedBenchUsers(url, passwordHash, USERS)

  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off' })
  const idleRss = server.rssMiB()
  try {
    let next = 0
    const nextEmail = () => emails[next++ % emails.length]!

    console.log('sign-in throughput...')
    const signInLoad = (base: string, connections: number, duration: number) =>
      cannon({
        url: `${base}/api/auth/login`,
        connections,
        duration,
        timeout: 30,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            setupRequest: (request) => ({ ...request, body: JSON.stringify({ email: nextEmail(), password: PASSWORD }) }),
          },
        ],
      })
    // Beside the real server, two bare ones (bench/support/bare-sign-in-server.ts): HTTP and the
    // hash only, and HTTP, the hash and the sign-in's two statements. What they reach is what
    // this machine allows any server, whatever its code.
    const bareHash = await startBareServer('bare-sign-in-server.ts', { BARE_HASH: passwordHash })
    const bareDatabase = await startBareServer('bare-sign-in-server.ts', { BARE_DATABASE: 'on', DATABASE_URL: url })
    const login = { latency: { p50: 0, p99: 0 }, non2xx: 0, errors: 0, timeouts: 0 }
    const turns = {
      inProcess: () => inProcessHasherRate(passwordHash, SECONDS / ROUNDS),
      perCore: () => perCoreHasherRate(passwordHash, SECONDS / ROUNDS),
      bareHash: async () => perSecond(await signInLoad(bareHash.url, 16, SECONDS / ROUNDS)),
      bareDatabase: async () => perSecond(await signInLoad(bareDatabase.url, 16, SECONDS / ROUNDS)),
      signIn: async () => {
        const part = await signInLoad(server.url, 16, SECONDS / ROUNDS)
        login.latency.p50 = Math.max(login.latency.p50, part.latency.p50)
        login.latency.p99 = Math.max(login.latency.p99, part.latency.p99)
        login.non2xx += part.non2xx
        login.errors += part.errors
        login.timeouts += part.timeouts
        return perSecond(part)
      },
    }
    const rates = Object.fromEntries(Object.keys(turns).map((name) => [name, 0])) as Record<keyof typeof turns, number>
    try {
      for (const base of [server.url, bareHash.url, bareDatabase.url]) await signInLoad(base, 16, WARM_UP_SECONDS)
      // They take turns, a few seconds each, so that a slower stretch of this shared machine
      // weighs on every measure alike; the means are compared. Between turns, a pause: when a
      // load ends, the server still hashes for the requests it had taken in, and that must not
      // slow the next turn down.
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, measure] of Object.entries(turns)) {
          rates[name as keyof typeof turns] += (await measure()) / ROUNDS
          await new Promise((resolve) => setTimeout(resolve, 1000))
        }
      }
    } finally {
      bareHash.stop()
      bareDatabase.stop()
    }
    const rawRate = rates.inProcess
    const signInRate = rates.signIn

    console.log('refresh rate...')
    // autocannon clears its per-connection context after every request, so the live refresh
    // tokens sit in a pool: each request takes one, each answer puts its successor back.
    const pool = (await Promise.all(emails.slice(0, 64).map((email) => signIn(server.url, email, PASSWORD)))).map((s) => s.refreshToken)
    const refresh = await cannon({
      url: `${server.url}/api/auth/refresh-token`,
      connections: 32,
      duration: SECONDS,
      requests: [productRefreshRequest(pool)],
    })

    console.log('/auth/me latency at 1,000 requests per second...')
    const meSessions = await Promise.all(emails.slice(100, 120).map((email) => signIn(server.url, email, PASSWORD)))
    const meRequests = meSessions.map((session) => ({ path: '/api/auth/me', headers: { authorization: `Bearer ${session.accessToken}` } }))
    // Sent from a process of its own, so that this one's collections are not counted as the
    // server's latency (bench/support/open-loop.ts).
    const sender = await SenderProcess.start()
    const meRuns: { result: OpenLoopResult; stolen: number }[] = []
    try {
      const meLoad = (seconds: number) => sender.run({ url: server.url, rate: 1000, seconds, connections: 20, requests: meRequests })
      await meLoad(WARM_UP_SECONDS)
      // Three runs, each with the share of the machine's time the hypervisor took during it, since
      // runs minutes apart on this shared machine differ by a factor of two in p99. The verdict is
      // the median run's.
      for (let run = 0; run < 3; run++) {
        const before = machineTime()
        const result = await meLoad(SECONDS / 2)
        const after = machineTime()
        meRuns.push({ result, stolen: (after.steal - before.steal) / (after.total - before.total) })
      }
    } finally {
      await sender.stop()
    }
    const me = [...meRuns].sort((a, b) => a.result.latency.p99 - b.result.latency.p99)[1]!.result

    console.log('memory under 200 concurrent sign-ins...')
    let peakRss = server.rssMiB()
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, server.rssMiB())), 250)
    const crowd = await signInLoad(server.url, 200, SECONDS)
    clearInterval(sampler)
    const afterRss = server.rssMiB()

    const loginShare = signInRate / rawRate
    const share = (rate: number) => `${fmt((rate / rawRate) * 100, 1)}%`
    const rows = [
      [
        'Password hasher alone (Argon2id 19 MiB, t=2, p=1) in one process, one verification per core at a time (as the server hashes), verifications/s',
        fmt(rawRate, 1),
        'reference',
        '',
      ],
      ['The same hasher alone in one process per core, verifications/s', fmt(rates.perCore, 1), '', share(rates.perCore)],
      [
        'Sign-in, successful answers/s (16 connections)',
        fmt(signInRate, 1),
        `>= 90% of hasher (${fmt(rawRate * 0.9, 1)})`,
        `${share(signInRate)} ${loginShare >= 0.9 ? 'met' : 'NOT met'} (${fmt((signInRate / rates.perCore) * 100, 1)}% of one process per core)`,
      ],
      ['Bare server: HTTP and the hash only, answers/s', fmt(rates.bareHash, 1), '', share(rates.bareHash)],
      ["Bare server: HTTP, the hash and the sign-in's two statements, answers/s", fmt(rates.bareDatabase, 1), '', share(rates.bareDatabase)],
      ['Sign-in latency p50 / p99 (slowest round), ms', `${login.latency.p50} / ${login.latency.p99}`, '', ''],
      ['Refresh, rotations/s (32 connections, 64 sessions)', fmt(perSecond(refresh)), '>= 1,000', perSecond(refresh) >= 1000 ? 'met' : 'NOT met'],
      ['Refresh latency p50 / p99, ms', `${refresh.latency.p50} / ${refresh.latency.p99}`, '', ''],
      ['GET /auth/me, sent evenly at 1,000 req/s: answered/s', fmt(me.answeredPerSecond), '1,000', ''],
      [
        'GET /auth/me latency p50 / p99 / p99.9 (median of three runs), ms',
        `${me.latency.p50} / ${me.latency.p99} / ${me.latency.p999}`,
        'p99 < 10',
        me.latency.p99 < 10 ? 'met' : 'NOT met',
      ],
      [
        'GET /auth/me p99 of each run (time stolen by the hypervisor), ms',
        meRuns.map((run) => `${run.result.latency.p99} (${fmt(run.stolen * 100, 1)}%)`).join(', '),
        '',
        '',
      ],
      ['200 concurrent sign-ins: answered/s, non-2xx, errors', `${fmt(perSecond(crowd), 1)}, ${crowd.non2xx}, ${crowd.errors + crowd.timeouts}`, '', ''],
      ['Server memory idle / peak under 200 sign-ins / after, MiB', `${idleRss} / ${peakRss} / ${afterRss}`, 'bounded', peakRss < idleRss + 400 ? 'met' : 'NOT met'],
      [
        'Errors in the other runs (non-2xx, errors, timeouts)',
        `${login.non2xx + refresh.non2xx + sum(meRuns, (run) => run.result.non2xx)}, ${login.errors + refresh.errors + sum(meRuns, (run) => run.result.errors)}, ${login.timeouts + refresh.timeouts}`,
        '0',
        '',
      ],
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
      '## How it is measured',
      '',
      '- Every measurement follows a few seconds of the same load, unmeasured (compiled code, pooled',
      '  connections, cached plans).',
      '- Five measures take turns, four rounds of a quarter of the time each, so that a slower stretch',
      '  of this shared machine weighs on all alike (the hasher alone has measured anywhere from 120 to',
      '  200 verifications a second here): the hasher alone in this process, one verification per core',
      '  at a time, as the server runs it (the reference); the same hasher in one process per core',
      '  (`bench/support/hasher-loop.ts`); sign-in; and two bare servers',
      '  (`bench/support/bare-sign-in-server.ts`), plain `node:http` with nothing but the hash, and with',
      '  the hash and the two statements every sign-in needs (the credentials read and `start_session`),',
      '  named as the product runs them. What the bare servers reach is what this machine allows any',
      '  server, whatever its code.',
      '- GET /auth/me is sent by `bench/support/open-loop.ts`, from a small process of its own: one',
      '  request every millisecond whatever the answers do, latency counted from when each was due',
      "  (docs/decisions/0008). Three runs, each with the share of the machine's time that the",
      "  hypervisor took from it; the verdict is the median run's p99.",
      '',
      '## Where the time goes',
      '',
      'Per answer, at full speed, from `npx tsx bench/support/cpu-per-request.ts` (CPU of the server',
      "process, of all PostgreSQL processes and of the load generator, and the machine's idle time,",
      'read from /proc over 10 s of steady load; 2026-11-23, two runs, a machine on which the hasher',
      'alone managed 120-150 verifications a second in one process):',
      '',
      '| Request | Answers/s | Server CPU, ms | PostgreSQL CPU, ms | Load generator CPU, ms | Machine idle, ms |',
      '| --- | --- | --- | --- | --- | --- |',
      '| Sign-in | 100-105 | 15.8-16.7 | 1.32 | 0.57-0.60 | 0.83-0.87 |',
      '| Refresh | 2,012-2,079 | 0.33-0.34 | 0.37 | 0.12 | 0.11-0.13 |',
      '| GET /auth/me | 2,743-3,411 | 0.29-0.35 | 0.10-0.14 | 0.08-0.09 | 0.10-0.12 |',
      '',
      '- Sign-in: 90% is at the edge of what any server reaches on this machine, and beyond one that',
      '  does more than the bare minimum. The bare server with nothing but HTTP and the hash comes to',
      '  90-101% of the hasher. Add the two statements a sign-in cannot do without, and it falls to',
      '  80-89% (four runs, 2026-11-23); this server, with Fastify, validation, tokens and logging on',
      '  top, to 78-79%. The statements cost far more than their 0.2 ms alone because two Argon2id',
      '  verifications at a time stream 2 x 19 MiB through the 32 MiB cache the two cores share:',
      '  PostgreSQL, the server and the load generator run on cold caches, and each of their wake-ups',
      "  evicts a part of the hashes' blocks in turn. In a bare server the credentials read alone took",
      '  10% off the throughput, and its main thread spends 1.2-1.5 ms of CPU per sign-in (HTTP, JSON,',
      "  two statements), this server's 1.8-2.2 ms (2026-11-23, `/proc/<pid>/task/<pid>/stat`).",
      '- The hasher in one process per core verifies 14-20% more than in one process, where the two',
      '  verifications map and unmap their 19 MiB in one address space and wait on each other in the',
      '  kernel (8-11% of the machine idle). Hashing in two child processes did not make the server',
      '  faster (105.5 against 105.7 sign-ins a second, taking turns, 2026-11-23): inside the server',
      '  the hashes wait on everything else anyway.',
      '- Tried for sign-in, no gain past the noise: a third or fourth concurrent hash (idle time falls,',
      '  Argon2id slows by as much); the activity search index without `fastupdate = off`, and without',
      '  the counter trigger (PostgreSQL 0.1-0.2 ms less per sign-in); `MIMALLOC_PURGE_DELAY`,',
      "  `MIMALLOC_RESERVE_OS_MEMORY` and glibc malloc tunables against the library's 3-4 ms of kernel",
      '  time per verification (it maps and unmaps its blocks each time); the bare server batching',
      '  reads and session starts of several sign-ins into one statement each (87%, still short).',
      '  Moving the writes into one database function did help (66-73% -> 75%, docs/decisions/0007),',
      '  and so did naming the statements (docs/decisions/0009). A cheaper hash would not raise the',
      "  share: it lowers the reference as much as the sign-in's hashing.",
      '- Refresh: one call of `rotate_refresh_token` (`rotate_fresh_refresh_token` before decision 0302,',
      '  measured in [refresh-grace.md](refresh-grace.md)), whose statements look rows up by key. The',
      '  single-join version it replaced ran at 450/s after a burst of sign-ins, when stale statistics',
      '  made PostgreSQL plan it from `users` outwards (docs/decisions/0007).',
      '- GET /auth/me: about 0.5 ms of the machine per request, so 1,000 a second keep a quarter of it',
      '  busy. The session check against PostgreSQL on every request is what makes sign-out and',
      '  suspension take effect on the very next request, so it stays; as a named statement it costs',
      '  PostgreSQL 0.10-0.14 ms instead of 0.30-0.34 (docs/decisions/0009), and it is built once, not',
      "  on every call (about a sixth of the server's CPU per request, 2026-11-28). The tail follows the",
      "  machine: the server's event loop stalls a few ms now and then (its collections among them), and",
      '  each stall queues the requests due meanwhile. Until 2026-11-28 the requests were sent from the',
      "  benchmark's own process, which had run every other measure: its collections (10-15 ms every",
      "  2 s) were counted as the server's latency, and runs minutes apart measured p99 from 7 to 20 ms.",
      '  From a small process of its own, the same server measures 3-5 ms.',
    ].join('\n')
  } finally {
    await server.stop()
    await dropDatabase(DATABASE)
  }
}
