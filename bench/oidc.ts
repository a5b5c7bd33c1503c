import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { hash, verifySync } from '@node-rs/argon2'
import type autocannon from 'autocannon'
import { sql } from 'kysely'
import { openDatabase } from '~server/db/database'
import { migrateToLatest } from '~server/db/migrate'
import { freePort } from '../tests/support/server-process'
import { productRefreshRequest, seedBenchUsers, signIn, type SignedIn, signInRequest } from './support/accounts'
import { type OpenLoopResult, type RequestSpec, SenderProcess } from './support/open-loop'
import { cannon } from './support/cannon'
import {
  type BareServer,
  type BenchServer,
  dropDatabase,
  machineLine,
  memoryMonitorMeter,
  processCpuMs,
  recreateDatabase,
  startBareServer,
  startServer,
} from './support/server'

/**
 * Sign in with Accounts (the OpenID Connect provider under /oidc, contract section 9), in one run
 * beside the product's own calls, on the embedded database (PGlite, what `npm start` runs) and on
 * PostgreSQL, the server in its own process and the load in this one:
 *
 *   - refresh grants per second at the token endpoint (a confidential app, client_secret_basic,
 *     rotation on every use, an RS256 ID token in every answer), target >= 500/s, beside the
 *     product's own `POST /auth/refresh-token` driven the same way;
 *   - authorization code exchanges per second, the codes made beforehand through the real flow
 *     (the authorization request, the product's sign-in step, the engine's redirects);
 *   - UserInfo latency at 1,000 requests per second sent evenly (target p99 < 10 ms), beside
 *     `GET /auth/me` at the same rate;
 *   - sign-in (`POST /auth/login`), so that the product's own figures can be held against
 *     docs/benchmarks/auth.md.
 *
 * The throughput measures take turns (a few seconds each, a few rounds) so that a slower stretch
 * of this shared machine weighs on all alike. BENCH_OIDC_ENGINES=pglite or =postgres runs one.
 */
const DATABASE = 'accounts_oidc_bench'
export const PASSWORD = 'Bench-Password-42!'
const USERS = 300
/** People signed in to the app, each with a browser of their own: one grant, one refresh chain each. */
const PEOPLE = 64
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CODES_PER_TURN = Number(process.env.BENCH_CODES ?? 400)
const CONNECTIONS = 32
export const REDIRECT_URI = 'http://127.0.0.1:4000/callback'
const SCOPE = 'openid profile email roles offline_access'
const TARGET_REFRESH_PER_SECOND = 500
const TARGET_USERINFO_P99_MS = 10
/** One PKCE verifier for every request of the run (what is measured is the check, not its freshness). */
const VERIFIER = crypto.randomBytes(32).toString('base64url')
const CHALLENGE = crypto.createHash('sha256').update(VERIFIER).digest('base64url')

export type Engine = 'pglite' | 'postgres'

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A browser for the engine's pages: a cookie jar and redirects followed by hand. */
export class Browser {
  private cookies = new Map<string, string>()

  constructor(private readonly base: string) {}

  async request(method: string, url: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers }
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(new URL(url, this.base), { method, headers, body: init.body, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim())
      const at = pair!.indexOf('=')
      const name = pair!.slice(0, at)
      const value = pair!.slice(at + 1)
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now()))
      if (expired || !value) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return response
  }

  /** Follows redirects until the app's redirect URI or a page of the web app (/login, /consent). */
  async follow(url: string): Promise<URL> {
    let current = new URL(url, this.base)
    for (let i = 0; i < 10; i++) {
      if (current.origin !== new URL(this.base).origin) return current
      if (!current.pathname.startsWith('/oidc') && !current.pathname.startsWith('/api/oidc')) return current
      const response = await this.request('GET', current.toString())
      await response.arrayBuffer()
      const location = response.headers.get('location')
      if (response.status < 300 || response.status >= 400 || !location) throw new Error(`expected a redirect from ${current.pathname}, got ${response.status}`)
      current = new URL(location, current)
    }
    throw new Error('too many redirects')
  }
}

export interface Person {
  browser: Browser
  session: SignedIn
}

export interface App {
  id: string
  secret: string
  basic: string
}

/**
 * The benchmarks' app: a confidential, first-party app registered by the seeded admin (bench0)
 * through the admin API, as the contract's admin page does.
 */
export async function registerBenchApp(base: string): Promise<App> {
  const admin = await signIn(base, 'bench0@example.com', PASSWORD)
  const created = await fetch(`${base}/api/admin/applications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.accessToken}`, 'x-csrf-token': admin.csrfToken, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench Wiki', type: 'confidential', redirectUris: [REDIRECT_URI], firstParty: true }),
  })
  if (created.status !== 201) throw new Error(`registering the app answered ${created.status}: ${await created.text()}`)
  const { application, clientSecret } = ((await created.json()) as { data: { application: { id: string }; clientSecret: string } }).data
  return { id: application.id, secret: clientSecret, basic: `Basic ${Buffer.from(`${application.id}:${clientSecret}`).toString('base64')}` }
}

/**
 * Access tokens of the first 64 bench users, each signed in to `app` through the code flow, or to the
 * product itself (`product`), for a load on UserInfo or on `GET /api/auth/me`.
 */
export async function benchAccessTokens(base: string, app: App, product = false): Promise<string[]> {
  const tokens: string[] = []
  for (let i = 0; i < 64; i++) {
    const session = await signIn(base, `bench${i + 1}@example.com`, PASSWORD)
    tokens.push(product ? session.accessToken : (await exchange(base, app, await authorize(app, { browser: new Browser(base), session }))).access_token)
  }
  return tokens
}

export interface Tokens {
  access_token: string
  refresh_token?: string
  id_token?: string
}

function authorizationUrl(app: App): string {
  const query = new URLSearchParams({
    client_id: app.id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: SCOPE,
    state: crypto.randomBytes(8).toString('base64url'),
    nonce: crypto.randomBytes(8).toString('base64url'),
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  })
  return `/oidc/auth?${query}`
}

/** One authorization code through the real flow; the first one of a person takes the sign-in step. */
export async function authorize(app: App, person: Person): Promise<string> {
  let at = await person.browser.follow(authorizationUrl(app))
  if (at.pathname === '/login') {
    const uid = at.searchParams.get('interaction')!
    const response = await person.browser.request('POST', `/api/oidc/interactions/${uid}/login`, {
      headers: { authorization: `Bearer ${person.session.accessToken}`, 'x-csrf-token': person.session.csrfToken, 'content-type': 'application/json' },
      body: '{}',
    })
    if (response.status !== 200) throw new Error(`sign-in step answered ${response.status}: ${await response.text()}`)
    at = await person.browser.follow(((await response.json()) as { data: { redirectTo: string } }).data.redirectTo)
  }
  const code = at.searchParams.get('code')
  if (!at.href.startsWith(REDIRECT_URI) || !code) throw new Error(`expected a code at the redirect URI, got ${at.href}`)
  return code
}

export const exchangeBody = (code: string) =>
  new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER }).toString()
export const refreshBody = (refreshToken: string) => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString()

export async function exchange(base: string, app: App, code: string): Promise<Tokens> {
  const response = await fetch(`${base}/oidc/token`, {
    method: 'POST',
    headers: { authorization: app.basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: exchangeBody(code),
  })
  if (response.status !== 200) throw new Error(`code exchange answered ${response.status}: ${await response.text()}`)
  return (await response.json()) as Tokens
}

/** `count` codes, made by the people's browsers side by side. */
async function prepareCodes(app: App, people: Person[], count: number): Promise<string[]> {
  const codes: string[] = []
  let next = 0
  await Promise.all(
    people.slice(0, 16).map(async (_, worker) => {
      while (next < count) {
        next++
        codes.push(await authorize(app, people[(worker + 16 * (next % 4)) % people.length]!))
      }
    }),
  )
  return codes
}

/** A refresh-grant load's request: each presents the refresh token `take` gives and `keep`s the one its answer gives. */
function refreshGrantRequest(app: App, take: () => string, keep: (refreshToken: string) => void): autocannon.Request {
  return {
    method: 'POST',
    headers: { authorization: app.basic, 'content-type': 'application/x-www-form-urlencoded' },
    setupRequest: (request) => ({ ...request, body: refreshBody(take()) }),
    onResponse(status, body) {
      if (status === 200) keep((JSON.parse(body) as Tokens).refresh_token!)
    },
  }
}

/** A UserInfo load's request at full speed: each with one of the access tokens, at random. */
function userInfoRequest(accessTokens: string[]): autocannon.Request {
  return {
    method: 'GET',
    setupRequest: (request) => ({ ...request, headers: { authorization: `Bearer ${accessTokens[Math.floor(Math.random() * accessTokens.length)]!}` } }),
  }
}

/** Signed-in chains: one live refresh token and one access token per person signed in to the app. */
export interface Chains {
  refreshTokens: string[]
  accessTokens: string[]
}

/**
 * One of the provider's calls at full speed for `seconds` (CONNECTIONS connections): UserInfo with
 * the chains' access tokens, or refresh grants along the chains. Answers in flight when it ends are
 * lost with their refresh tokens: up to CONNECTIONS chains fewer afterwards.
 */
export function fullSpeedLoad(base: string, app: App, chains: Chains, call: 'userinfo' | 'refresh', seconds: number): Promise<autocannon.Result> {
  return cannon({
    url: `${base}/oidc/${call === 'userinfo' ? 'me' : 'token'}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      call === 'userinfo'
        ? userInfoRequest(chains.accessTokens)
        : refreshGrantRequest(
            app,
            () => chains.refreshTokens.shift()!,
            (refreshToken) => chains.refreshTokens.push(refreshToken),
          ),
    ],
  })
}

/** `count` of the benchmark's accounts signed in to the app through the real flow, one by one: each one's refresh and access token. */
export async function signInChains(base: string, app: App, count: number): Promise<Chains> {
  const refreshTokens: string[] = []
  const accessTokens: string[] = []
  for (let i = 0; i < count; i++) {
    const person = { browser: new Browser(base), session: await signIn(base, `bench${i + 1}@example.com`, PASSWORD) }
    const tokens = await exchange(base, app, await authorize(app, person))
    refreshTokens.push(tokens.refresh_token!)
    accessTokens.push(tokens.access_token)
  }
  return { refreshTokens, accessTokens }
}

interface Turn {
  answers: number
  seconds: number
  non2xx: number
  errors: number
  serverCpuMs: number
  postgresCpuMs: number
  latencies: { p50: number; p99: number }[]
}

const emptyTurn = (): Turn => ({ answers: 0, seconds: 0, non2xx: 0, errors: 0, serverCpuMs: 0, postgresCpuMs: 0, latencies: [] })

interface Context {
  engine: Engine
  server: BenchServer
  /** The PostgreSQL backends of the bench database (none on PGlite: it runs inside the server). */
  backends: () => number[]
}

/** Runs one load, adding its answers, time and CPU to `into`. */
async function measured(context: Context, into: Turn, load: () => Promise<autocannon.Result>): Promise<void> {
  const pid = context.server.child.pid!
  const backends = context.backends()
  const postgres = () => backends.reduce((sum, backend) => sum + processCpuMs(backend), 0)
  const before = { server: processCpuMs(pid), postgres: postgres(), at: performance.now() }
  const result = await load()
  const seconds = (performance.now() - before.at) / 1000
  // Answers still in the server when the load ends finish within the pause, and are its CPU too.
  await pause(500)
  into.answers += result['2xx']
  into.seconds += seconds
  into.non2xx += result.non2xx
  into.errors += result.errors + result.timeouts
  into.serverCpuMs += processCpuMs(pid) - before.server
  into.postgresCpuMs += postgres() - before.postgres
  into.latencies.push({ p50: result.latency.p50, p99: result.latency.p99 })
}

interface EngineResult {
  engine: Engine
  load: number[]
  oidcRefresh: Turn
  productRefresh: Turn
  codeExchange: Turn
  signIn: Turn
  userinfo: OpenLoopResult[]
  me: OpenLoopResult[]
  /** The bare server's runs (bench/support/bare-userinfo-server.ts): what this machine allows a server with little memory. */
  bare: OpenLoopResult[]
  /** CPU ms a second the kernel's memory monitor (DAMON) took during each round of the 1,000-a-second runs, where it runs. */
  memoryMonitor: number[]
  prepared: { codes: number; seconds: number }
  idTokenAlg: string
}

/** A database with the benchmark's accounts in it (`database`: the PostgreSQL database's name, for running two side by side). */
export async function prepareEngine(
  engine: Engine,
  passwordHash: string,
  database = DATABASE,
): Promise<{ env: Record<string, string>; cleanup(): Promise<void>; backends(): Promise<number[]> }> {
  if (engine === 'postgres') {
    const url = await recreateDatabase(database)
    await seedBenchUsers(url, passwordHash, USERS)
    const pg = (await import('pg')).default
    return {
      env: { DATABASE_URL: url },
      cleanup: () => dropDatabase(database),
      async backends() {
        const client = new pg.Client({ connectionString: url.replace(`/${database}`, '/postgres') })
        await client.connect()
        try {
          const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database])
          return rows.map((row) => Number(row.pid))
        } finally {
          await client.end()
        }
      },
    }
  }
  // The embedded database is the server's own files: made and seeded here before the server opens them.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-oidc-bench-'))
  const handle = await openDatabase({ dataDir })
  await migrateToLatest(handle.db)
  await sql`INSERT INTO users (name, email, password_hash, role, status, email_verified_at)
            SELECT 'Bench User ' || n, 'bench' || n || '@example.com', ${passwordHash},
                   CASE WHEN n = 0 THEN 'ADMIN' ELSE 'CLIENT' END, 'ACTIVE', now()
            FROM generate_series(0, ${USERS}::int) AS n`.execute(handle.db)
  await handle.close()
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: '' },
    cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    backends: async () => [],
  }
}

async function runEngine(engine: Engine, passwordHash: string): Promise<EngineResult> {
  console.log(`\n--- ${engine}`)
  const prepared = await prepareEngine(engine, passwordHash)
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const server = await startServer({ ...prepared.env, PORT: String(port), APP_URL: base, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' })
  try {
    const emails = Array.from({ length: USERS }, (_, i) => `bench${i + 1}@example.com`)
    const app = await registerBenchApp(base)

    console.log(`signing ${PEOPLE} people in to the app...`)
    const people: Person[] = []
    for (let i = 0; i < PEOPLE; i++) people.push({ browser: new Browser(base), session: await signIn(base, emails[i]!, PASSWORD) })
    // Each person's first code: the sign-in step, and the chain of refresh tokens that person holds.
    const first = await Promise.all(people.map(async (person) => exchange(base, app, await authorize(app, person))))
    const idTokenAlg = JSON.parse(Buffer.from(first[0]!.id_token!.split('.')[0]!, 'base64url').toString()).alg as string
    const oidcPool = first.map((tokens) => tokens.refresh_token!)
    const accessTokens = first.map((tokens) => tokens.access_token)
    const reserve: string[] = []
    const productPool: string[] = []
    let nextEmail = PEOPLE
    const topUpProduct = async () => {
      const missing = 64 - productPool.length
      const sessions = await Promise.all(Array.from({ length: missing }, () => signIn(base, emails[nextEmail++ % USERS]!, PASSWORD)))
      productPool.push(...sessions.map((s) => s.refreshToken))
    }

    const oidcRefreshLoad = (seconds: number) =>
      cannon({
        url: `${base}/oidc/token`,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [
          refreshGrantRequest(
            app,
            () => oidcPool.shift() ?? reserve.shift()!,
            (refreshToken) => oidcPool.push(refreshToken),
          ),
        ],
      })
    const productRefreshLoad = (seconds: number) =>
      cannon({
        url: `${base}/api/auth/refresh-token`,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [productRefreshRequest(productPool)],
      })
    const exchangeLoad = (codes: string[]) =>
      cannon({
        url: `${base}/oidc/token`,
        connections: CONNECTIONS,
        amount: codes.length,
        requests: [
          {
            method: 'POST',
            headers: { authorization: app.basic, 'content-type': 'application/x-www-form-urlencoded' },
            setupRequest: (request) => ({ ...request, body: exchangeBody(codes.shift()!) }),
            onResponse(status, body) {
              if (status !== 200) return
              const tokens = JSON.parse(body) as Tokens
              reserve.push(tokens.refresh_token!)
            },
          },
        ],
      })
    const signInLoad = (seconds: number) =>
      cannon({
        url: `${base}/api/auth/login`,
        connections: 16,
        duration: seconds,
        timeout: 30,
        requests: [signInRequest(emails, PASSWORD, nextEmail)],
      })

    const context: Context = { engine, server, backends: () => [] }
    // Warm-up: compiled code, pooled connections, cached plans.
    console.log('warming up...')
    await topUpProduct()
    await oidcRefreshLoad(2)
    await productRefreshLoad(2)
    await exchangeLoad(await prepareCodes(app, people, 200))
    await signInLoad(2)
    let backendPids = await prepared.backends()
    context.backends = () => backendPids

    const result: EngineResult = {
      engine,
      load: [],
      oidcRefresh: emptyTurn(),
      productRefresh: emptyTurn(),
      codeExchange: emptyTurn(),
      signIn: emptyTurn(),
      userinfo: [],
      me: [],
      bare: [],
      memoryMonitor: [],
      prepared: { codes: 0, seconds: 0 },
      idTokenAlg,
    }
    result.load.push(os.loadavg()[0]!)
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`round ${round + 1} of ${ROUNDS}...`)
      backendPids = await prepared.backends()
      // Tokens lost in flight at the end of a turn are replaced from the codes' refresh tokens.
      while (oidcPool.length < PEOPLE && reserve.length > 0) oidcPool.push(reserve.shift()!)
      await measured(context, result.oidcRefresh, () => oidcRefreshLoad(SECONDS))
      await topUpProduct()
      await measured(context, result.productRefresh, () => productRefreshLoad(SECONDS))
      const began = performance.now()
      const codes = await prepareCodes(app, people, CODES_PER_TURN)
      result.prepared.codes += codes.length
      result.prepared.seconds += (performance.now() - began) / 1000
      await pause(500)
      await measured(context, result.codeExchange, () => exchangeLoad(codes))
      await measured(context, result.signIn, () => signInLoad(SECONDS))
      await pause(1000)
    }

    console.log('UserInfo and GET /auth/me at 1,000 requests per second...')
    const sessions = await Promise.all(emails.slice(200, 220).map((email) => signIn(base, email, PASSWORD)))
    // Sent from a process of its own: this one holds every earlier measure's garbage, and its
    // collections would count as the server's latency (bench/support/open-loop.ts).
    const sender = await SenderProcess.start()
    let bare: BareServer | undefined
    try {
      bare = await startBareServer('bare-userinfo-server.ts')
      const userinfo = accessTokens.map((token) => ({ path: '/oidc/me', headers: { authorization: `Bearer ${token}` } }))
      const me = sessions.map((session) => ({ path: '/api/auth/me', headers: { authorization: `Bearer ${session.accessToken}` } }))
      const load = (requests: RequestSpec[], seconds: number, url = base) => sender.run({ url, rate: 1000, seconds, connections: 20, requests })
      await load(userinfo, 2)
      await load(me, 2)
      await load(userinfo, 2, bare.url)
      for (let run = 0; run < ROUNDS; run++) {
        const monitor = memoryMonitorMeter()
        result.userinfo.push(await load(userinfo, SECONDS))
        await pause(500)
        result.me.push(await load(me, SECONDS))
        await pause(500)
        result.bare.push(await load(userinfo, SECONDS, bare.url))
        const monitorMsPerSecond = monitor()
        if (monitorMsPerSecond !== undefined) result.memoryMonitor.push(monitorMsPerSecond)
        await pause(500)
      }
    } finally {
      bare?.stop()
      await sender.stop()
    }
    result.load.push(os.loadavg()[0]!)
    return result
  } finally {
    await server.stop()
    await prepared.cleanup()
  }
}

const rate = (turn: Turn) => turn.answers / Math.max(turn.seconds, 0.001)
const cpu = (turn: Turn, of: 'serverCpuMs' | 'postgresCpuMs') => turn[of] / Math.max(1, turn.answers)
const latency = (turn: Turn) => `${median(turn.latencies.map((l) => l.p50))} / ${median(turn.latencies.map((l) => l.p99))}`
const medianRun = (runs: OpenLoopResult[]) => [...runs].sort((a, b) => a.latency.p99 - b.latency.p99)[Math.floor(runs.length / 2)]!

function engineSection(result: EngineResult): string {
  const { oidcRefresh, productRefresh, codeExchange, signIn: login } = result
  const onPostgres = result.engine === 'postgres'
  const throughputRow = (label: string, turn: Turn, target?: string, met?: boolean) =>
    `| ${label} | ${fmt(rate(turn))} | ${latency(turn)} | ${fmt(cpu(turn, 'serverCpuMs'), 2)} | ${onPostgres ? fmt(cpu(turn, 'postgresCpuMs'), 2) : 'in the server'} | ${turn.non2xx + turn.errors} | ${target ?? ''} | ${met === undefined ? '' : met ? 'met' : 'NOT met'} |`
  const userinfo = medianRun(result.userinfo)
  const me = medianRun(result.me)
  const openRow = (label: string, run: OpenLoopResult, runs: OpenLoopResult[], target?: boolean) =>
    `| ${label} | ${fmt(run.answeredPerSecond)} | ${run.latency.p50} / ${run.latency.p90} / ${run.latency.p99} / ${run.latency.p999} | ${runs.map((r) => r.latency.p99).join(', ')} | ${runs.reduce((n, r) => n + r.non2xx + r.errors, 0)} | ${target ? `p99 < ${TARGET_USERINFO_P99_MS}` : ''} | ${target ? (run.latency.p99 < TARGET_USERINFO_P99_MS ? 'met' : 'NOT met') : ''} |`
  return [
    `## ${onPostgres ? 'PostgreSQL' : 'Embedded database (PGlite, the default `npm start`)'}`,
    '',
    `Load average ${fmt(result.load[0]!, 1)} when the measurements began, ${fmt(result.load[1]!, 1)} at the end.`,
    `The codes were made through the real flow at ${fmt(result.prepared.codes / result.prepared.seconds)} a second (16 browsers side by side; each code three requests: the authorization request, the interaction, the engine's resume).`,
    '',
    `Throughput: ${CONNECTIONS} connections (sign-in: 16), ${ROUNDS} turns of ${SECONDS} s each (the exchanges: ${fmt(CODES_PER_TURN)} codes a turn), taking turns.`,
    '',
    `| Call | Answers/s | Latency p50 / p99 (median turn), ms | Server CPU per answer, ms | PostgreSQL CPU per answer, ms | Failed | Target | |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    throughputRow(
      `Refresh grant, \`POST /oidc/token\` (client_secret_basic, rotation, ${result.idTokenAlg} ID token)`,
      oidcRefresh,
      `>= ${TARGET_REFRESH_PER_SECOND}/s`,
      rate(oidcRefresh) >= TARGET_REFRESH_PER_SECOND,
    ),
    throughputRow("The product's own refresh, `POST /api/auth/refresh-token`", productRefresh),
    throughputRow('Authorization code exchange, `POST /oidc/token`', codeExchange),
    throughputRow('Sign-in, `POST /api/auth/login` (Argon2id)', login),
    '',
    `At 1,000 requests per second sent evenly (\`bench/support/open-loop.ts\`, 20 connections), ${ROUNDS} runs of ${SECONDS} s each, taking turns; the median run by p99:`,
    '',
    '| Call | Answered/s | p50 / p90 / p99 / p99.9, ms | p99 of each run, ms | Failed | Target | |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    openRow('UserInfo, `GET /oidc/me` (opaque access token checked in the database)', userinfo, result.userinfo, true),
    openRow('The session check, `GET /api/auth/me`', me, result.me),
    openRow('A bare `node:http` server answering the same claims (no framework, engine or database)', medianRun(result.bare), result.bare),
    '',
    memoryMonitorLine(result.memoryMonitor),
  ].join('\n')
}

/**
 * What the kernel's memory monitor took while the 1,000-a-second runs ran. On this kind of virtual
 * machine its sampling stalls a process in proportion to the memory it keeps using
 * (bench/support/memory-monitor-stalls.ts), so a run's tail says as much about the machine's
 * state as about the product: this line says what that state was.
 */
function memoryMonitorLine(msPerSecond: number[]): string {
  if (msPerSecond.length === 0) return "The kernel's memory monitor (DAMON) did not run on this machine during these runs."
  return [
    `The kernel's memory monitor (DAMON, \`kdamond\`) took ${msPerSecond.map((ms) => fmt(ms, 1)).join(', ')} ms of CPU a second in each round.`,
    'Its sampling, twice a second, stalls each process here in proportion to the memory it keeps using: the bare server, with',
    "little, feels it least; the product's server (about 100 MiB of live heap) and PostgreSQL more (docs/benchmarks.md).",
  ].join('\n')
}

/** Password verifications a second, one at a time for three seconds: how fast this machine is, whatever else is measured. */
function hasherRate(passwordHash: string): number {
  const started = performance.now()
  let done = 0
  while (performance.now() - started < 3000) {
    verifySync(passwordHash, PASSWORD)
    done++
  }
  return (done * 1000) / (performance.now() - started)
}

export async function run(): Promise<string> {
  const engines = (process.env.BENCH_OIDC_ENGINES ?? 'pglite,postgres').split(',').map((name) => name.trim()) as Engine[]
  const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  const machineSpeed = hasherRate(passwordHash)
  const results: EngineResult[] = []
  for (const engine of engines) results.push(await runEngine(engine, passwordHash))
  const summary = results.map((r) => `${r.engine === 'postgres' ? 'PostgreSQL' : 'PGlite'}: ${fmt(rate(r.oidcRefresh))} refresh grants/s`).join(', ')
  return [
    '# Sign in with Accounts',
    '',
    `Run by \`npm run bench -- oidc\` on ${new Date().toISOString().slice(0, 10)}: ${machineLine()} (${summary}).`,
    `This machine's speed, for comparing runs on different machines: the Argon2id hasher alone, one verification at a time on one core,`,
    `${fmt(machineSpeed, 1)} a second (auth.md's runs of 2026-11-23 measured 120-139 a second with one at a time on each of two cores).`,
    'The server in its own process (`src/server/main.ts`, RATE_LIMIT=off, LOG_LEVEL=warn), autocannon in the benchmark process,',
    `the open-loop sender in a small one of its own. ${USERS} accounts; ${PEOPLE} of them signed in to one confidential, first-party app`,
    `(registered through the admin API) with \`${SCOPE}\`: one grant each. Each refresh request presents the`,
    'refresh token the last answer gave (a pool of one live token per person, so two requests never race for one grant);',
    'the product refresh the same, with 64 product sessions. The server CPU time per answer is read from /proc: it counts',
    'what the machine spent on each call whatever else ran beside it.',
    '',
    ...results.map(engineSection).flatMap((section) => [section, '']),
    '## Where the time goes',
    '',
    '- Statements per call (counted at the driver): a refresh grant runs two (the app with the refresh',
    "  token it presents, that token's grant and account; then the token's consumption, the new refresh",
    "  token, the access token and the grant's last use in one), a code exchange two, UserInfo one (the",
    "  access token with its grant, app and account); the product's own refresh runs one",
    '  (`rotate_refresh_token`). They were eight, eight and four when the provider was built (decision',
    '  0405: an engine request reads ahead and defers its token writes, its consumption too). All are',
    '  named statements, built and compiled once (src/server/db/prepared.ts).',
    '- On PGlite the database runs inside the server process, on its one thread: the server CPU per',
    "  answer includes the database's work, and the engine's answer waits for every statement in turn.",
    '  PGlite has no autovacuum: a statement planned on tables it never analysed can take a plan that',
    '  reads far more than its keys, and each planning measures every table and index through its file',
    '  layer (decision 0406: the token read is written as key lookups; housekeeping vacuums PGlite).',
    '- The RS256 ID token of each refresh answer costs about 0.5 ms of CPU to sign (2048-bit key; ES256',
    '  would be 0.03 ms): the contract keeps RS256 as the default.',
    '- The rest is the protocol engine itself (`oidc-provider` on Koa inside Fastify: client',
    '  authentication, its models, JSON payloads of each token, the answer): per grant several times the',
    "  product's own refresh, which is one function call in the database and a few lines of JavaScript.",
    '- `npx tsx bench/support/oidc-refresh-profile.ts [pglite|postgres]` runs refresh grants alone with',
    '  the server under `--cpu-prof` (profile in /tmp/oidc-prof).',
    '- `npx tsx bench/support/oidc-userinfo-tail.ts [postgres|pglite] [node flags]` runs UserInfo at 1,000 a',
    "  second and prints each run's latencies beside the server's pauses, garbage collections and memory",
    "  and the CPU the kernel's memory monitor took (what the UserInfo tail is made of: docs/benchmarks.md).",
    "- On this machine the 1,000-a-second tails follow the kernel's memory monitor (DAMON) more than the",
    "  product: with its sampling paused (a diagnosis, never done by the benchmark), UserInfo's p99 came to",
    "  5.2 ms and `/auth/me`'s to 4.5 in a run where both were 30-50 ms with it running (docs/benchmarks.md).",
    '  `npx tsx bench/support/memory-monitor-stalls.ts` shows the same on the bare server once it holds',
    '  200 MiB of heap.',
    '- `npx tsx bench/support/oidc-userinfo-allocation.ts [postgres|pglite]` prints what each UserInfo call',
    '  allocates and what of it survives young-generation collections (decisions 0407 and 0408).',
  ].join('\n')
}
