import type { ChildProcess } from 'node:child_process'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { hash } from '@node-rs/argon2'
import type autocannon from 'autocannon'
import pg from 'pg'
import { freePort } from '../tests/support/server-process'
import { type SignedIn, seedBenchUsers, signIn, signInRequest } from './support/accounts'
import { cannon } from './support/cannon'
import { type OpenLoopResult, type RequestSpec, SenderProcess } from './support/open-loop'
import { dropDatabase, forkSupport, machineLine, machineTime, nextMessage, processCpuMs, recreateDatabase, startServer } from './support/server'
import { percentile } from './support/percentile'
import { measureWebhookStatements } from './support/webhook-statements'

/**
 * Webhooks on PostgreSQL (contract section 12, decisions 0520-0524), receivers in a process of
 * their own (bench/support/webhook-receivers.ts) answering 204 at once:
 *
 * - deliveries a second: 20,000 deliveries due at once (2,000 events to ten endpoints, written
 *   straight into the outbox), timed until none is left to send;
 * - change-to-delivery latency: an admin renames people at 200 changes a second, sent evenly for
 *   20 s, each of 4,000 people once (a rename rewrites the search text of the person's activity
 *   entries, decision 0102: renaming the same 200 people twenty times in 20 s measured that
 *   rewrite growing, not the delivery); each `user.updated` is timed from its change (the body's
 *   `timestamp`) to its arrival;
 * - the product's own sign-in (autocannon, 16 connections) and `GET /auth/me` (1,000 a second, sent
 *   evenly from a process of its own) without webhooks and with ten endpoints subscribed to every
 *   event, taking turns, twice each, so that a slower stretch of the shared machine weighs on both;
 *   in the same turns, an admin's renames at 40 a second, whose CPU and machine time per change
 *   show what the ten deliveries of a change cost.
 *
 * First, the database's share alone: the CPU of PostgreSQL's backend for the sender's three
 * statements (bench/support/webhook-statements.ts).
 *
 * Beside each figure, the CPU time it took: the server's per delivery and per change, the
 * statements (transactions) the database committed per delivery, and the load generator's and
 * receivers' own CPU, so that a run where the benchmark's processes and not the server fill the
 * cores says so. BENCH_CPU_PROF=<dir> also writes the server's `--cpu-prof` profile there.
 *
 * About five minutes.
 */
const DATABASE = 'accounts_bench_webhooks'
const PASSWORD = 'Bench-Password-42!'
const USERS = 500
/** Accounts besides those signing in, so that each change renames a person once. */
const PEOPLE = 4_000
const ENDPOINTS = 10
const BULK_EVENTS = 2_000
const CHANGE_RATE = 200
const CHANGE_SECONDS = 20
const TURN_SECONDS = 10
const ROUNDS = 2
const ME_RATE = 1_000
/** Sign-ins a second sent evenly, well below what the machine can do: their latency is the request path's, not the queue's. */
const PACED_SIGN_IN_RATE = 40
/** An admin's renames a second in each turn, sent evenly: cheap changes, so that what their deliveries cost stands out. */
const PACED_CHANGE_RATE = 40
/** Accounts renamed in the turns, each once. */
const RENAMED = PACED_CHANGE_RATE * TURN_SECONDS * ROUNDS * 2

interface ReceiverStats {
  counts: Record<string, number>
  lags: number[]
}

/** The receivers' process: its address, and its counts since it was last asked. */
class Receivers {
  private constructor(
    readonly base: string,
    private readonly child: ChildProcess,
  ) {}

  static async start(): Promise<Receivers> {
    const port = await freePort()
    const child = forkSupport('webhook-receivers.ts', { PORT: String(port) })
    await nextMessage(child)
    return new Receivers(`http://127.0.0.1:${port}`, child)
  }

  get pid(): number {
    return this.child.pid!
  }

  async stats(): Promise<ReceiverStats> {
    const answer = nextMessage<ReceiverStats>(this.child)
    this.child.send({ stats: true })
    return answer
  }

  stop(): void {
    this.child.kill()
  }
}

const total = (stats: ReceiverStats) => Object.values(stats.counts).reduce((sum, n) => sum + n, 0)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The admin's calls, as the web app makes them. */
function adminApi(base: string, admin: SignedIn) {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${base}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${admin.accessToken}`, 'x-csrf-token': admin.csrfToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    return ((await response.json()) as { data: T }).data
  }
}

/** Deliveries still to send (pending, or failed and to be tried again). */
async function waiting(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'failed')`)
  return Number(rows[0]!.n)
}

/** Transactions the database has committed so far (each statement outside BEGIN is one). */
async function commits(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>(`SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`)
  return Number(rows[0]!.n)
}

async function statusCounts(client: pg.Client): Promise<Record<string, number>> {
  const { rows } = await client.query<{ status: string; n: string }>(`SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status`)
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]))
}

interface Turn {
  signInsPerSecond: number
  signInP99: number
  signInFailures: number
  /** The server's CPU per sign-in over the saturating stretch (its share of the deliveries included), and the receivers'. */
  signInServerMs: number
  signInReceiversMs: number
  /** Sign-ins at PACED_SIGN_IN_RATE a second, sent evenly. */
  paced: OpenLoopResult
  /** Renames at PACED_CHANGE_RATE a second, sent evenly, and per change: the server's and receivers' CPU, the machine's busy time, the transactions committed. */
  changes: OpenLoopResult
  changeServerMs: number
  changeReceiversMs: number
  changeMachineMs: number
  changeCommits: number
  me: OpenLoopResult
  /** Deliveries the receivers got during the turn. */
  delivered: number
}

const perSecond = (result: autocannon.Result) => result['2xx'] / result.duration
const ms = (value: number) => `${Math.round(value).toLocaleString('en')} ms`

export async function run(): Promise<string> {
  const load = os.loadavg()[0]!
  console.log("the database's share of a delivery...")
  const statements = await measureWebhookStatements()
  const url = await recreateDatabase(DATABASE)
  const everyone = await seedBenchUsers(url, await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 }), USERS + PEOPLE + RENAMED)
  const emails = everyone.slice(0, USERS)
  const profileDir = process.env.BENCH_CPU_PROF
  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' }, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])
  const receivers = await Receivers.start()
  const sender = await SenderProcess.start()
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  const turns: { without: Turn[]; with: Turn[] } = { without: [], with: [] }
  let bulk = { deliveries: 0, seconds: 0, perSecond: 0, received: 0, statuses: {} as Record<string, number>, serverCpuMs: 0, receiversCpuMs: 0, commits: 0 }
  let latency = {
    sent: 0,
    answeredPerSecond: 0,
    changeP99: 0,
    non2xx: 0,
    arrived: 0,
    p50: 0,
    p95: 0,
    p99: 0,
    max: 0,
    serverCpuMs: 0,
    senderCpuMs: 0,
    receiversCpuMs: 0,
    busy: 0,
  }
  const serverPid = server.child.pid!
  try {
    const admin = await signIn(server.url, 'bench0@example.com', PASSWORD)
    const call = adminApi(server.url, admin)
    // The account /auth/me asks for is never among those signing in meanwhile.
    const [personEmail, ...signers] = emails
    const person = await signIn(server.url, personEmail!, PASSWORD)
    const addEndpoints = async () => {
      const ids: string[] = []
      for (let n = 1; n <= ENDPOINTS; n++) {
        const { webhook } = await call<{ webhook: { id: string } }>('POST', '/admin/webhooks', { url: `${receivers.base}/endpoint-${n}`, events: ['*'] })
        ids.push(webhook.id)
      }
      return ids
    }
    const removeEndpoints = async (ids: string[]) => {
      for (const id of ids) await call('DELETE', `/admin/webhooks/${id}`)
    }

    // 1. Sign-in and GET /auth/me, without and with ten endpoints, taking turns.
    let first = 0
    const signIns = (seconds: number) =>
      cannon({ url: `${server.url}/api/auth/login`, connections: 16, duration: seconds, timeout: 30, requests: [signInRequest(signers, PASSWORD, (first += 97))] })
    const meRequests: RequestSpec[] = [{ path: '/api/auth/me', headers: { authorization: `Bearer ${person.accessToken}` } }]
    const pacedRequests: RequestSpec[] = signers.map((email) => ({
      path: '/api/auth/login',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    }))
    const idsOf = async (list: string[]) =>
      (await db.query<{ id: string }>(`SELECT id FROM users WHERE email = ANY($1::text[]) ORDER BY email`, [list])).rows.map((row) => row.id)
    /** The admin's rename of one person, as the web app sends it. */
    const rename = (id: string, n: number): RequestSpec => ({
      path: `/api/admin/users/${id}`,
      method: 'PUT',
      headers: { authorization: `Bearer ${admin.accessToken}`, 'x-csrf-token': admin.csrfToken, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Renamed ${n}` }),
    })
    const renamed = await idsOf(everyone.slice(USERS + PEOPLE))
    const renames = (from: number): RequestSpec[] => renamed.slice(from, from + PACED_CHANGE_RATE * TURN_SECONDS).map((id, n) => rename(id, from + n))
    let renamedSoFar = 0
    console.log('warming up...')
    await signIns(3)
    await sender.run({ url: server.url, rate: ME_RATE, seconds: 3, connections: 32, requests: meRequests })
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of ['without', 'with'] as const) {
        const ids = kind === 'with' ? await addEndpoints() : []
        await receivers.stats()
        const paced = await sender.run({ url: server.url, rate: PACED_SIGN_IN_RATE, seconds: TURN_SECONDS, connections: 16, requests: pacedRequests })
        await sleep(1_000)
        // Cheap changes at an even rate: the server's, the receivers' and the machine's time a change, its deliveries included.
        const changeBefore = { server: processCpuMs(serverPid), receivers: processCpuMs(receivers.pid), machine: machineTime(), commits: await commits(db) }
        const changes = await sender.run({ url: server.url, rate: PACED_CHANGE_RATE, seconds: TURN_SECONDS, connections: 16, requests: renames(renamedSoFar) })
        renamedSoFar += PACED_CHANGE_RATE * TURN_SECONDS
        await sleep(1_000)
        const changed = Math.max(1, changes.ok)
        const machineAfter = machineTime()
        const changeCosts = {
          changeServerMs: (processCpuMs(serverPid) - changeBefore.server) / changed,
          changeReceiversMs: (processCpuMs(receivers.pid) - changeBefore.receivers) / changed,
          changeMachineMs: (machineAfter.total - machineAfter.idle - (changeBefore.machine.total - changeBefore.machine.idle)) / changed,
          // Less the two statements of this measure itself.
          changeCommits: ((await commits(db)) - changeBefore.commits - 2) / changed,
        }
        const cpuBefore = { server: processCpuMs(serverPid), receivers: processCpuMs(receivers.pid) }
        const signInResult = await signIns(TURN_SECONDS)
        const signedIn = Math.max(1, signInResult['2xx'])
        const signInServerMs = (processCpuMs(serverPid) - cpuBefore.server) / signedIn
        const signInReceiversMs = (processCpuMs(receivers.pid) - cpuBefore.receivers) / signedIn
        // /auth/me writes no event: what it meets with endpoints is the sender delivering the
        // sign-ins' events meanwhile.
        const me = await sender.run({ url: server.url, rate: ME_RATE, seconds: TURN_SECONDS, connections: 32, requests: meRequests })
        const delivered = total(await receivers.stats())
        const turn: Turn = {
          signInsPerSecond: perSecond(signInResult),
          signInP99: signInResult.latency.p99,
          signInFailures: signInResult.non2xx + signInResult.errors + signInResult.timeouts,
          signInServerMs,
          signInReceiversMs,
          paced,
          changes,
          ...changeCosts,
          me,
          delivered,
        }
        turns[kind].push(turn)
        console.log(
          `${kind} ${ENDPOINTS} endpoints: paced sign-ins p50 ${paced.latency.p50} ms p99 ${paced.latency.p99} ms; renames ${changeCosts.changeServerMs.toFixed(2)} ms server CPU, ${changeCosts.changeMachineMs.toFixed(2)} ms machine, ${changeCosts.changeCommits.toFixed(2)} commits each; ${turn.signInsPerSecond.toFixed(1)} sign-ins/s (p99 ${turn.signInP99} ms, ${signInServerMs.toFixed(2)} ms server CPU each), /auth/me p50 ${me.latency.p50} ms p99 ${me.latency.p99} ms (${me.non2xx + me.errors} failed), ${delivered} deliveries received`,
        )
        if (kind === 'with') {
          // Deleting an endpoint drops its pending deliveries: the next turn starts quiet.
          await removeEndpoints(ids)
        }
        await sleep(1_000)
      }
    }

    // 2. Deliveries a second: 20,000 due at once.
    console.log('deliveries a second...')
    const ids = await addEndpoints()
    await db.query(`DELETE FROM webhook_deliveries`)
    await receivers.stats()
    await db.query('BEGIN')
    await db.query(
      `INSERT INTO webhook_events (id, type, data, created_at)
       SELECT 'msg_bench' || n, 'user.updated', jsonb_build_object('user', jsonb_build_object('id', 'bench' || n), 'changes', jsonb_build_array('name')), now()
       FROM generate_series(1, $1::int) AS n`,
      [BULK_EVENTS],
    )
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, next_attempt_at, created_at)
       SELECT 'whd_bench_' || n || '_' || w.id, w.id, 'msg_bench' || n, 'pending', now(), now()
       FROM generate_series(1, $1::int) AS n, webhooks w`,
      [BULK_EVENTS],
    )
    await db.query('COMMIT')
    const bulkBefore = { server: processCpuMs(serverPid), receivers: processCpuMs(receivers.pid), commits: await commits(db) }
    let polls = 1
    const started = performance.now()
    // A test event wakes the sender at once (its next poll would otherwise be up to 2 s away).
    await call('POST', `/admin/webhooks/${ids[0]}/test`)
    const deadline = started + 180_000
    while ((await waiting(db)) > 0 && performance.now() < deadline) {
      polls++
      await sleep(50)
    }
    const seconds = (performance.now() - started) / 1000
    // Less the benchmark's own: its polls of the table, and the test event's request (about ten).
    const serverCommits = (await commits(db)) - bulkBefore.commits - polls - 1
    const statuses = await statusCounts(db)
    const received = total(await receivers.stats())
    const deliveries = BULK_EVENTS * ENDPOINTS + 1
    bulk = {
      deliveries,
      seconds,
      perSecond: (statuses.delivered ?? 0) / seconds,
      received,
      statuses,
      serverCpuMs: processCpuMs(serverPid) - bulkBefore.server,
      receiversCpuMs: processCpuMs(receivers.pid) - bulkBefore.receivers,
      commits: serverCommits,
    }
    console.log(`${statuses.delivered ?? 0} of ${deliveries} delivered in ${seconds.toFixed(1)} s: ${bulk.perSecond.toFixed(0)}/s (${received} received)`)
    await removeEndpoints(ids)

    // 3. Change-to-delivery latency at 200 changes a second, one endpoint subscribed to user.updated.
    console.log('change-to-delivery latency...')
    await call('POST', '/admin/webhooks', { url: `${receivers.base}/latency`, events: ['user.updated'] })
    const people = await idsOf(everyone.slice(USERS, USERS + PEOPLE))
    const changes: RequestSpec[] = Array.from({ length: CHANGE_RATE * CHANGE_SECONDS }, (_, n) => rename(people[n % people.length]!, n))
    await receivers.stats()
    const changeBefore = { server: processCpuMs(serverPid), sender: processCpuMs(sender.pid), receivers: processCpuMs(receivers.pid), machine: machineTime() }
    const changed = await sender.run({ url: server.url, rate: CHANGE_RATE, seconds: CHANGE_SECONDS, connections: 32, requests: changes })
    const machineAfter = machineTime()
    const changeCpu = {
      server: processCpuMs(serverPid) - changeBefore.server,
      sender: processCpuMs(sender.pid) - changeBefore.sender,
      receivers: processCpuMs(receivers.pid) - changeBefore.receivers,
      busy: 1 - (machineAfter.idle - changeBefore.machine.idle) / (machineAfter.total - changeBefore.machine.total),
    }
    const settleBy = performance.now() + 30_000
    while ((await waiting(db)) > 0 && performance.now() < settleBy) await sleep(100)
    await sleep(500)
    const arrivals = await receivers.stats()
    const lags = arrivals.lags.sort((a, b) => a - b)
    latency = {
      sent: changed.sent,
      answeredPerSecond: changed.answeredPerSecond,
      changeP99: changed.latency.p99,
      non2xx: changed.non2xx + changed.errors,
      arrived: lags.length,
      p50: percentile(lags, 50),
      p95: percentile(lags, 95),
      p99: percentile(lags, 99),
      max: lags.at(-1) ?? NaN,
      serverCpuMs: changeCpu.server,
      senderCpuMs: changeCpu.sender,
      receiversCpuMs: changeCpu.receivers,
      busy: changeCpu.busy,
    }
    console.log(`${lags.length} of ${changed.ok} changes delivered: p50 ${latency.p50} ms, p95 ${latency.p95} ms, p99 ${latency.p99} ms, max ${latency.max} ms`)
  } finally {
    await db.end().catch(() => undefined)
    await sender.stop()
    receivers.stop()
    await server.stop()
    await dropDatabase(DATABASE)
  }

  const mean = (list: Turn[], pick: (turn: Turn) => number) => list.reduce((sum, turn) => sum + pick(turn), 0) / list.length
  const row = (label: string, pick: (turn: Turn) => number, digits: number) =>
    `| ${label} | ${turns.without.map((turn) => pick(turn).toFixed(digits)).join(' / ')} (mean ${mean(turns.without, pick).toFixed(digits)}) | ${turns.with
      .map((turn) => pick(turn).toFixed(digits))
      .join(' / ')} (mean ${mean(turns.with, pick).toFixed(digits)}) |`
  const date = new Date().toISOString().slice(0, 10)
  return `# Webhooks

Run by \`npm run bench -- webhooks\` on ${date}: ${machineLine()}; load average ${load.toFixed(1)} when it began and ${os.loadavg()[0]!.toFixed(1)} when it ended (the
machine is shared: times include time other processes held the cores). PostgreSQL, one server process; the receivers
(bench/support/webhook-receivers.ts, every path answering 204 at once) and the open-loop sender each in a process of
their own.

## Targets

| Target | Result | |
| --- | --- | --- |
| Deliveries a second to a local receiver >= 1,000 | **${bulk.perSecond.toFixed(0)}/s** (${(bulk.statuses.delivered ?? 0).toLocaleString('en')} of ${bulk.deliveries.toLocaleString('en')} in ${bulk.seconds.toFixed(1)} s) | ${bulk.perSecond >= 1000 ? 'met' : 'not met'} |
| Change-to-delivery p95 < 1 s at ${CHANGE_RATE} changes a second | **${ms(latency.p95)}** (p50 ${ms(latency.p50)}, p99 ${ms(latency.p99)}, max ${ms(latency.max)}; ${latency.arrived.toLocaleString('en')} of ${latency.sent.toLocaleString('en')} changes arrived) | ${latency.p95 < 1000 && latency.arrived >= latency.sent ? 'met' : 'not met'} |
| Sign-in and \`GET /auth/me\` unchanged with ten subscribed endpoints | sign-ins at ${PACED_SIGN_IN_RATE} a second: p50 ${mean(turns.without, (t) => t.paced.latency.p50).toFixed(1)} ms without, ${mean(turns.with, (t) => t.paced.latency.p50).toFixed(1)} ms with, p99 ${mean(turns.without, (t) => t.paced.latency.p99).toFixed(1)} and ${mean(turns.with, (t) => t.paced.latency.p99).toFixed(1)} ms; \`/auth/me\` p99 ${mean(turns.without, (t) => t.me.latency.p99).toFixed(1)} ms without, ${mean(turns.with, (t) => t.me.latency.p99).toFixed(1)} ms with; as many sign-ins as the cores allow: ${mean(turns.without, (t) => t.signInsPerSecond).toFixed(1)}/s without, ${mean(turns.with, (t) => t.signInsPerSecond).toFixed(1)}/s with (the deliveries' CPU: ${(mean(turns.with, (t) => t.signInServerMs) - mean(turns.without, (t) => t.signInServerMs)).toFixed(2)} ms of the server's and ${(mean(turns.with, (t) => t.signInReceiversMs) - mean(turns.without, (t) => t.signInReceiversMs)).toFixed(2)} ms of the receivers' a sign-in; a rename's ten deliveries: ${(mean(turns.with, (t) => t.changeServerMs) - mean(turns.without, (t) => t.changeServerMs)).toFixed(2)} ms of the server's CPU, ${(mean(turns.with, (t) => t.changeMachineMs) - mean(turns.without, (t) => t.changeMachineMs)).toFixed(2)} ms of the machine's time) | see below |

## The database's share

The sender's three statements alone, on a database of their own with ten endpoints (bench/support/webhook-statements.ts,
decision 0564): one connection writes an event with its ten deliveries (as a change does), leases the ten and writes their
outcomes, ${statements.events.toLocaleString('en')} times after a warm-up. The CPU of that connection's PostgreSQL backend, per event of ten deliveries:

| The event and its deliveries | The lease | The outcomes | In all | WAL written | Updates made in place (HOT) |
| --- | --- | --- | --- | --- | --- |
| ${statements.insertMs.toFixed(2)} ms | ${statements.leaseMs.toFixed(2)} ms | ${statements.outcomesMs.toFixed(2)} ms | ${(statements.insertMs + statements.leaseMs + statements.outcomesMs).toFixed(2)} ms | ${(statements.walBytes / 1024).toFixed(1)} KB | ${(statements.hotShare * 100).toFixed(0)} % |

## Deliveries a second

${BULK_EVENTS.toLocaleString('en')} events to ${ENDPOINTS} endpoints (one receiver path each) written straight into the outbox in one
transaction, every delivery due at once, and a test event sent through the API to wake the sender. Timed from
then until no delivery was left pending or failed (the table asked every 50 ms): ${bulk.seconds.toFixed(1)} s, statuses
at the end ${JSON.stringify(bulk.statuses)}; the receivers counted ${bulk.received.toLocaleString('en')} requests. The sender takes at most 4
deliveries of an endpoint at first and up to 32 while it answers fast, 128 in all (decisions 0522, 0526), and each
finished delivery wakes it for the next.

The server's CPU: ${(bulk.serverCpuMs / Math.max(1, bulk.statuses.delivered ?? 0)).toFixed(3)} ms a delivery (${Math.round(bulk.serverCpuMs).toLocaleString('en')} ms in all); the database committed
${(bulk.commits / Math.max(1, bulk.deliveries)).toFixed(3)} transactions a delivery (${bulk.commits.toLocaleString('en')}, the benchmark's own polls left out); the receivers'
process used ${Math.round(bulk.receiversCpuMs).toLocaleString('en')} ms of CPU.

## Change-to-delivery latency

An admin renames people (\`PUT /api/admin/users/:id\`, ${(CHANGE_RATE * CHANGE_SECONDS).toLocaleString('en')} people, each once) at ${CHANGE_RATE} a second, sent evenly for ${CHANGE_SECONDS} s;
one endpoint subscribes to \`user.updated\`. Each delivery is timed from its change (the body's \`timestamp\`,
the moment the change was made) to its arrival at the receiver. The changes themselves were answered at
${latency.answeredPerSecond.toFixed(0)} a second, p99 ${ms(latency.changeP99)} (${latency.non2xx} failed)${
    latency.answeredPerSecond < CHANGE_RATE * 0.98
      ? `: below ${CHANGE_RATE} a second, the server itself fell
behind the changes, and their deliveries with it`
      : ''
  }.

CPU while the changes were sent: the server ${(latency.serverCpuMs / Math.max(1, latency.sent)).toFixed(2)} ms a change, its delivery included
(${Math.round(latency.serverCpuMs).toLocaleString('en')} ms in ${CHANGE_SECONDS} s); the load generator ${Math.round(latency.senderCpuMs).toLocaleString('en')} ms and the receivers ${Math.round(latency.receiversCpuMs).toLocaleString('en')} ms; the machine's
cores were ${(latency.busy * 100).toFixed(0)} % busy (other processes of the machine included).

| p50 | p95 | p99 | max | arrived |
| --- | --- | --- | --- | --- |
| ${ms(latency.p50)} | ${ms(latency.p95)} | ${ms(latency.p99)} | ${ms(latency.max)} | ${latency.arrived.toLocaleString('en')} of ${latency.sent.toLocaleString('en')} |

## Sign-in and \`GET /auth/me\` with and without ten endpoints

Each turn: sign-ins at ${PACED_SIGN_IN_RATE} a second for ${TURN_SECONDS} s, sent evenly from a process of its own (well within what the
machine can do: their latency is the request's own), then an admin's renames of people (each once) at ${PACED_CHANGE_RATE} a second for
${TURN_SECONDS} s, sent evenly (cheap changes, so that what their ten deliveries cost the server, the receivers and the whole
machine, PostgreSQL and the load generator included, stands out), then as many sign-ins as the cores allow for ${TURN_SECONDS} s (autocannon,
16 connections, ${USERS} accounts in turn), then \`GET /auth/me\` at
${ME_RATE.toLocaleString('en')} a second for ${TURN_SECONDS} s, sent evenly from a process of its own. "With": ten endpoints subscribed to
every event (\`["*"]\`), so each sign-in writes ten deliveries in its transaction and the sender delivers them
meanwhile (\`/auth/me\` writes none: it meets the sender still delivering the sign-ins' events). The endpoints
are deleted after each "with" turn, which drops what they had pending. ${ROUNDS} rounds, taking turns; each
figure is given per turn, then the mean.

| | Without webhooks | With ten endpoints |
| --- | --- | --- |
${row(`Sign-ins at ${PACED_SIGN_IN_RATE} a second: p50 (ms)`, (t) => t.paced.latency.p50, 1)}
${row(`Sign-ins at ${PACED_SIGN_IN_RATE} a second: p99 (ms)`, (t) => t.paced.latency.p99, 1)}
${row(`Sign-ins at ${PACED_SIGN_IN_RATE} a second: failed`, (t) => t.paced.non2xx + t.paced.errors, 0)}
${row(`Renames at ${PACED_CHANGE_RATE} a second: p50 (ms)`, (t) => t.changes.latency.p50, 1)}
${row(`Renames at ${PACED_CHANGE_RATE} a second: the server's CPU a change (ms)`, (t) => t.changeServerMs, 2)}
${row(`Renames at ${PACED_CHANGE_RATE} a second: the receivers' CPU a change (ms)`, (t) => t.changeReceiversMs, 2)}
${row(`Renames at ${PACED_CHANGE_RATE} a second: the machine's busy time a change (ms)`, (t) => t.changeMachineMs, 2)}
${row(`Renames at ${PACED_CHANGE_RATE} a second: transactions committed a change`, (t) => t.changeCommits, 2)}
${row('Sign-ins a second, as many as the cores allow', (t) => t.signInsPerSecond, 1)}
${row("The server's CPU a sign-in (ms), deliveries included", (t) => t.signInServerMs, 2)}
${row("The receivers' CPU a sign-in (ms)", (t) => t.signInReceiversMs, 2)}
${row('Sign-in p99 (ms)', (t) => t.signInP99, 0)}
${row('Failed sign-ins', (t) => t.signInFailures, 0)}
${row('`/auth/me` p50 (ms)', (t) => t.me.latency.p50, 2)}
${row('`/auth/me` p99 (ms)', (t) => t.me.latency.p99, 2)}
${row('`/auth/me` failed', (t) => t.me.non2xx + t.me.errors, 0)}
${row('Deliveries received in the turn', (t) => t.delivered, 0)}

A sign-in's own request does the same with and without endpoints, besides one statement's more rows
in its transaction (the event and a delivery per endpoint, decision 0521); nothing is sent while it
runs. The deliveries are work besides it, on the same two cores: when sign-ins alone fill the cores,
each one's ten deliveries take the server's and the receivers' CPU given above from the hashing, and
fewer sign-ins fit in a second (${(100 * (1 - mean(turns.with, (t) => t.signInsPerSecond) / mean(turns.without, (t) => t.signInsPerSecond))).toFixed(0)} % fewer in this run). At ${PACED_SIGN_IN_RATE} a second, which the machine carries, the
median sign-in took ${mean(turns.without, (t) => t.paced.latency.p50).toFixed(1)} ms without endpoints and ${mean(turns.with, (t) => t.paced.latency.p50).toFixed(1)} ms with, per turn as in the table.
A change's ten deliveries cost ${(mean(turns.with, (t) => t.changeServerMs) - mean(turns.without, (t) => t.changeServerMs)).toFixed(2)} ms of the server's CPU, ${(mean(turns.with, (t) => t.changeReceiversMs) - mean(turns.without, (t) => t.changeReceiversMs)).toFixed(2)} ms of the receivers' and ${(mean(turns.with, (t) => t.changeMachineMs) - mean(turns.without, (t) => t.changeMachineMs)).toFixed(2)} ms of the whole
machine's time (${(mean(turns.with, (t) => t.changeCommits) - mean(turns.without, (t) => t.changeCommits)).toFixed(2)} transactions more), the means of the renames' rows.

${whatUnchangedTakes()}
`

  /**
   * What "sign-in unchanged" takes when sign-ins fill the cores, from this run's own figures: the
   * machine's time a sign-in then takes beside what a change's ten deliveries took.
   */
  function whatUnchangedTakes(): string {
    const withoutRate = mean(turns.without, (t) => t.signInsPerSecond)
    const withRate = mean(turns.with, (t) => t.signInsPerSecond)
    const signInMachineMs = (os.availableParallelism() * 1000) / withoutRate
    const tenDeliveriesMs = mean(turns.with, (t) => t.changeMachineMs) - mean(turns.without, (t) => t.changeMachineMs)
    return `### What "unchanged" takes when sign-ins fill the cores

Each sign-in then takes ${signInMachineMs.toFixed(1)} ms of the machine's time (${os.availableParallelism()} cores, ${withoutRate.toFixed(1)} sign-ins a second without endpoints):
the server's hashing and requests, PostgreSQL and the load generator. A change's ten deliveries took ${tenDeliveriesMs.toFixed(2)} ms of the
machine's time in the renames' turns (the sender, PostgreSQL recording them, the receivers): on cores that sign-ins keep busy,
that is up to ${((100 * tenDeliveriesMs) / (signInMachineMs + tenDeliveriesMs)).toFixed(0)} % fewer sign-ins; ${(100 * (1 - withRate / withoutRate)).toFixed(0)} % were measured (the cores' idle moments take some of it).
Sign-ins at full load stay unchanged where the deliveries' work, PostgreSQL's share of it included, runs on cores the
hashing does not use; on one 2-core machine shared by the server, PostgreSQL, the receivers and the load generator it
comes out of the sign-ins. The sign-in request itself is the same with and without: the paced rows above.`
  }
}
