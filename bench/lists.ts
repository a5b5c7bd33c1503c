import { spawn } from 'node:child_process'
import http from 'node:http'
import os from 'node:os'
import { hash } from '@node-rs/argon2'
import autocannon from 'autocannon'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { listActivities, recentActivities } from '~server/data/activity/activity-list'
import { userTotals } from '~server/data/counts'
import { listUsers } from '~server/data/users/user-list'
import { USER_SORTS } from '~shared/schemas/lists'
import type { Database } from '~server/db/types'
import { signIn } from './support/accounts'
import { measureScim, scimSection } from './scim'
import { machineLine, query, startServer } from './support/server'
import { seededListsDatabase } from './support/lists-data'
import { percentile } from './support/percentile'

/**
 * Lists at scale: 1,000,000 users and 10,000,000 activity entries on PostgreSQL (seeded with
 * `npm run db:seed`'s code when the database is empty). Measured twice:
 *
 *   - at the database: the exact queries the API runs (the data functions themselves, through a
 *     Kysely instance that records every statement), each case repeated REPEATS times (more than
 *     the 5 executions after which a named prepared statement may switch to a generic plan), with
 *     the plan of every statement compared between the first and the last repetition;
 *   - through HTTP: the real server (`src/server/main.ts`) in its own process, autocannon in this
 *     one, every request's latency recorded.
 *
 * Targets: user list and searches p95 < 50 ms; activity pages (filtered and searched, first 50
 * pages) p95 < 50 ms; statistics p95 < 20 ms.
 *
 * BENCH_DATABASE_URL names the database (default postgres://postgres@127.0.0.1:5432/accounts_bench);
 * if it names the server's `postgres` database, `accounts_bench` on that server is used instead.
 */
const REPEATS = Number(process.env.BENCH_REPEATS ?? 15)
const HTTP_SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
/** Clients under load; the latency targets are judged on one client at a time (no queueing). */
const HTTP_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4)
const ADMIN_EMAIL = 'lists-bench-admin@example.com'
const ADMIN_PASSWORD = 'Lists-Bench-Admin-42!'

type Group = 'User list pages' | 'User searches' | 'User sorts and filters (first 50 pages)' | 'Activity pages (first 50, filtered and searched)' | 'Statistics'
const TARGETS: Record<Group, number> = {
  'User list pages': 50,
  'User searches': 50,
  'User sorts and filters (first 50 pages)': 50,
  'Activity pages (first 50, filtered and searched)': 50,
  Statistics: 20,
}

interface Case {
  group: Group
  name: string
  /** The API call this case is, for the HTTP run. */
  path: string
  run(db: Kysely<Database>): Promise<unknown>
}

const USER_SEARCHES = [
  'john',
  'smith',
  'son',
  'garcia',
  'mary.j',
  'example.org',
  'lee',
  '4242',
  'james.smith1',
  'wagner_',
  'nomatchxyz',
  'jo',
  'e',
  'qz',
  'é',
  '.o',
  'a s',
  '42',
]
const ACTIVITY_SEARCHES = ['logged', 'password', 'john', 'smith', 'firefox', 'role: client', 'james.smith1', 'example.org', 'garcia', 'nomatchxyz']
const ACTIVITY_KINDS = ['logged in', 'registered', 'updated', 'deleted', 'verified', 'reset', 'logged out']
const pages = (...list: number[]) => list

function cases(): Case[] {
  const all: Case[] = []
  const users = (name: string, query: Record<string, string | number>) => {
    const { verified, mfa, ...rest } = query
    const input = {
      page: 1,
      limit: 10,
      sort: 'createdAt',
      order: 'desc',
      now: new Date(),
      ...rest,
      ...(verified !== undefined ? { verified: verified === 'true' } : {}),
      ...(mfa !== undefined ? { mfa: mfa === 'true' } : {}),
    } as Parameters<typeof listUsers>[1]
    const sortsAndFilters = ['sort', 'order', 'verified', 'mfa', 'inactiveDays'].some((key) => key in query)
    const group: Group = 'search' in query ? 'User searches' : sortsAndFilters ? 'User sorts and filters (first 50 pages)' : 'User list pages'
    all.push({
      group,
      name,
      path: `/api/admin/users?${new URLSearchParams(Object.entries({ limit: 10, ...query }).map(([k, v]) => [k, String(v)]))}`,
      run: (db) => listUsers(db, input),
    })
  }
  for (let page = 1; page <= 50; page++) users(`page ${page}`, { page })
  for (const role of ['ADMIN', 'DEVELOPER', 'MODERATOR', 'CLIENT']) for (const page of pages(1, 2, 10)) users(`role ${role}, page ${page}`, { role, page })
  for (const status of ['ACTIVE', 'INACTIVE', 'SUSPENDED']) for (const page of pages(1, 5)) users(`status ${status}, page ${page}`, { status, page })
  users('role MODERATOR + status SUSPENDED', { role: 'MODERATOR', status: 'SUSPENDED' })
  for (const search of USER_SEARCHES) for (const page of pages(1, 3)) users(`"${search}", page ${page}`, { search, page })
  // Every sort key both ways, pages 1 to 50 (docs/decisions/0110).
  for (const sort of USER_SORTS)
    for (const order of ['asc', 'desc']) for (let page = 1; page <= 50; page++) users(`sort ${sort} ${order}, page ${page}`, { sort, order, page })
  // Dormant accounts, by creation and by last sign-in (never-signed-in ones first when ascending).
  for (const inactiveDays of [30, 90, 365]) {
    for (const page of pages(1, 10, 25, 50)) {
      users(`no sign-in for ${inactiveDays} days, page ${page}`, { inactiveDays, page })
      users(`no sign-in for ${inactiveDays} days by last sign-in desc, page ${page}`, { inactiveDays, sort: 'lastSignInAt', order: 'desc', page })
    }
  }
  for (const [name, query] of [
    ['unverified', { verified: 'false' }],
    ['verified', { verified: 'true' }],
    ['two-factor on', { mfa: 'true' }],
    ['two-factor off', { mfa: 'false' }],
    ['two-factor on, by name', { mfa: 'true', sort: 'name', order: 'asc' }],
    ['unverified, by last sign-in', { verified: 'false', sort: 'lastSignInAt', order: 'asc' }],
    ['role ADMIN, by name', { role: 'ADMIN', sort: 'name', order: 'asc' }],
    ['status SUSPENDED, by last sign-in', { status: 'SUSPENDED', sort: 'lastSignInAt', order: 'desc' }],
    ['role MODERATOR + no sign-in for 365 days, by e-mail', { role: 'MODERATOR', inactiveDays: 365, sort: 'email', order: 'asc' }],
  ] as const) {
    for (const page of pages(1, 10, 50)) users(`${name}, page ${page}`, { ...query, page })
  }
  users('"john" + role DEVELOPER', { search: 'john', role: 'DEVELOPER' })
  users('"smith" by last sign-in', { search: 'smith', sort: 'lastSignInAt', order: 'desc' })
  users('"smith" + status SUSPENDED', { search: 'smith', status: 'SUSPENDED' })

  const activities = (name: string, query: Record<string, string | number>) => {
    const input = { page: 1, limit: 20, ...query } as Parameters<typeof listActivities>[1]
    all.push({
      group: 'Activity pages (first 50, filtered and searched)',
      name,
      path: `/api/admin/activity-logs?${new URLSearchParams(Object.entries({ limit: 20, ...query }).map(([k, v]) => [k, String(v)]))}`,
      run: (db) => listActivities(db, input),
    })
  }
  for (let page = 1; page <= 50; page++) activities(`page ${page}`, { page })
  for (const activity of ACTIVITY_KINDS) for (const page of pages(1, 10, 25, 50)) activities(`"${activity}" entries, page ${page}`, { activity, page })
  for (const search of ACTIVITY_SEARCHES) for (const page of pages(1, 5, 25, 50)) activities(`"${search}", page ${page}`, { search, page })
  for (const [search, activity] of [
    ['firefox', 'logged in'],
    ['john', 'updated'],
    ['smith', 'logged out'],
    ['10.1', 'logged in'],
  ] as const) {
    for (const page of pages(1, 50)) activities(`"${search}" in "${activity}" entries, page ${page}`, { search, activity, page })
  }

  all.push({
    group: 'Statistics',
    name: 'totals and recent activity',
    path: '/api/admin/stats',
    run: (db) => Promise.all([userTotals(db), recentActivities(db, 10)]),
  })
  return all
}

// ---------------------------------------------------------------------------------------------

interface Summary {
  count: number
  p50: number
  p95: number
  p99: number
  max: number
}

function summarise(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b)
  return { count: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN }
}

const ms = (value: number) => value.toFixed(1)

interface Statement {
  sql: string
  parameters: readonly unknown[]
}

/** A plan's shape: node types, relations and indexes, without costs or row counts. */
function planShape(plan: Record<string, unknown>): string {
  const parts = [String(plan['Node Type']), plan['Index Name'] ?? plan['Relation Name'] ?? ''].join(':')
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? []
  return children.length > 0 ? `${parts}(${children.map(planShape).join(',')})` : parts
}

async function shapeOf(pool: pg.Pool, statement: Statement): Promise<string> {
  const result = await pool.query(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.parameters as unknown[])
  const plan = result.rows[0]['QUERY PLAN'] as [{ Plan: Record<string, unknown> }]
  return planShape(plan[0].Plan)
}

async function explainAnalyze(pool: pg.Pool, statement: Statement): Promise<string[]> {
  const result = await pool.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${statement.sql}`, statement.parameters as unknown[])
  return result.rows.map((row) => row['QUERY PLAN'] as string)
}

async function measureDatabase(url: string, all: Case[]) {
  let recording: Statement[] | null = null
  const pool = new pg.Pool({ connectionString: url, max: 2, application_name: 'accounts-bench-lists' })
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query' && recording) recording.push({ sql: event.query.sql, parameters: event.query.parameters })
    },
  })
  const perGroup = new Map<Group, number[]>()
  const early = new Map<Group, number[]>()
  const late = new Map<Group, number[]>()
  const statements: { group: Group; name: string; statement: Statement }[] = []
  const perCase: { group: Group; name: string; summary: Summary }[] = []
  const changedPlans: string[] = []
  let checkedPlans = 0

  // Warm the caches once, as a running server's would be.
  for (const c of all) await c.run(db)

  for (const c of all) {
    recording = []
    await c.run(db)
    // The planner-estimate statements (EXPLAIN) are part of the call's time, not plans of their own.
    const firstStatements = recording.filter((s) => !/^\s*EXPLAIN/i.test(s.sql))
    recording = null
    const firstShapes = await Promise.all(firstStatements.map((s) => shapeOf(pool, s)))
    const times: number[] = []
    for (let i = 0; i < REPEATS; i++) {
      const started = performance.now()
      await c.run(db)
      const elapsed = performance.now() - started
      times.push(elapsed)
      ;(perGroup.get(c.group) ?? perGroup.set(c.group, []).get(c.group)!).push(elapsed)
      const bucket = i < 5 ? early : i >= REPEATS - 5 ? late : null
      if (bucket) (bucket.get(c.group) ?? bucket.set(c.group, []).get(c.group)!).push(elapsed)
    }
    perCase.push({ group: c.group, name: c.name, summary: summarise(times) })
    const lastShapes = await Promise.all(firstStatements.map((s) => shapeOf(pool, s)))
    checkedPlans += firstShapes.length
    firstShapes.forEach((shape, i) => {
      if (shape !== lastShapes[i]) changedPlans.push(`${c.group}: ${c.name}`)
    })
    for (const statement of firstStatements) statements.push({ group: c.group, name: c.name, statement })
  }
  await db.destroy()
  return { perGroup, early, late, statements, changedPlans, checkedPlans, perCase }
}

async function measureHttp(url: string, all: Case[]) {
  const passwordHash = await hash(ADMIN_PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  await query(url, [
    `INSERT INTO users (name, email, password_hash, role, status, email_verified_at)
     VALUES ('Lists Bench Admin', $1, $2, 'ADMIN', 'ACTIVE', now())
     ON CONFLICT (email) DO UPDATE SET password_hash = EXCLUDED.password_hash, role = 'ADMIN', status = 'ACTIVE',
       email_verified_at = coalesce(users.email_verified_at, now())`,
    [ADMIN_EMAIL, passwordHash],
  ])

  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off' })
  try {
    const { accessToken } = await signIn(server.url, ADMIN_EMAIL, ADMIN_PASSWORD)

    type Run = { latencies: number[]; requests: number; seconds: number; failures: number }
    const results = new Map<Group, { single: Run; loaded: Run }>()
    const perPath = new Map<string, number[]>()
    for (const group of Object.keys(TARGETS) as Group[]) {
      const paths = all.filter((c) => c.group === group).map((c) => c.path)
      // A short warm-up, then one client at a time, then HTTP_CONNECTIONS clients at once, each
      // cycling through every call of the group.
      await cannon(server.url, paths, accessToken, 1, Math.min(3, HTTP_SECONDS), [])
      const measure = async (connections: number): Promise<Run> => {
        const latencies: number[] = []
        const result = await cannon(server.url, paths, accessToken, connections, HTTP_SECONDS, latencies, perPath)
        return { latencies, requests: result['2xx'], seconds: result.duration, failures: result.non2xx + result.errors + result.timeouts }
      }
      results.set(group, { single: await measure(1), loaded: await measure(HTTP_CONNECTIONS) })
    }
    console.log('CSV exports against COPY ... TO STDOUT...')
    const exports = await measureExports(url, server)
    return { results, perPath, exports }
  } finally {
    await server.stop()
  }
}

function cannon(
  base: string,
  paths: string[],
  token: string,
  connections: number,
  seconds: number,
  latencies: number[],
  /** With one client, each answer's latency by path (requests are answered in the order sent). */
  perPath?: Map<string, number[]>,
): Promise<autocannon.Result> {
  let next = 0
  const sent: string[] = []
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections,
        duration: seconds,
        headers: { authorization: `Bearer ${token}` },
        requests: [
          {
            method: 'GET',
            setupRequest: (request) => {
              const path = paths[next++ % paths.length]!
              sent.push(path)
              return { ...request, path }
            },
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    )
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      const path = sent.shift()
      if (statusCode !== 200) return
      latencies.push(responseTime)
      if (perPath && connections === 1 && path) (perPath.get(path) ?? perPath.set(path, []).get(path)!).push(responseTime)
    })
  })
}

/** The rows of an export, as the API orders them, for PostgreSQL's own COPY of the same rows. */
const EXPORTS = [
  {
    name: 'all users',
    path: '/api/admin/users/export',
    copy: `SELECT id, name, email, phone, role, status, email_verified_at IS NOT NULL, created_at, updated_at, last_sign_in_at
      FROM users ORDER BY created_at DESC, id DESC`,
  },
  {
    name: 'all activity entries',
    path: '/api/admin/activity-logs/export',
    copy: `SELECT a.id, a.created_at, a.activity, a.details, a.ip_address, u.id, u.name, u.email, u.role
      FROM activities a LEFT JOIN users u ON u.id = a.user_id ORDER BY a.created_at DESC, a.id DESC`,
  },
] as const

interface ExportRun {
  name: string
  rows: number
  seconds: number
  copyRows: number
  copySeconds: number
  idleMiB: number
  peakMiB: number
}

/**
 * Lines of a CSV stream (no field of the seeded data holds a line break), counted with the
 * buffer's own search: the counting shares the two cores with PostgreSQL and the server, and a
 * byte-by-byte loop in JavaScript took a share of them that neither a browser's download nor psql
 * takes from the machine being measured.
 */
async function countLines(stream: AsyncIterable<Buffer>): Promise<number> {
  let lines = 0
  for await (const chunk of stream) for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) lines++
  return lines
}

/** GET through node:http (no WHATWG stream in between), the body as it arrives. */
function download(url: string, headers: Record<string, string>): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        if (response.statusCode !== 200) {
          response.resume()
          reject(new Error(`${url}: ${response.statusCode}`))
        } else resolve(response)
      })
      .on('error', reject)
  })
}

/**
 * Each export through HTTP (the server's memory sampled every 100 ms, against its memory just
 * before), then PostgreSQL's `COPY (the same rows) TO STDOUT` through psql, in the same run.
 */
async function measureExports(url: string, server: Awaited<ReturnType<typeof startServer>>): Promise<ExportRun[]> {
  const runs: ExportRun[] = []
  for (const file of EXPORTS) {
    // Signed in, then COPY, then the export: the sign-in's entry and the export's own entry
    // (written after its last row) fall outside what both count.
    const { accessToken } = await signIn(server.url, ADMIN_EMAIL, ADMIN_PASSWORD)
    let started = performance.now()
    const psql = spawn('psql', [url, '-X', '-q', '-c', `COPY (${file.copy}) TO STDOUT WITH (FORMAT csv)`], { stdio: ['ignore', 'pipe', 'inherit'] })
    const copyRows = await countLines(psql.stdout)
    await new Promise((resolve) => psql.on('close', resolve))
    const copySeconds = (performance.now() - started) / 1000

    const idleMiB = server.rssMiB()
    let peakMiB = idleMiB
    const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, server.rssMiB())), 100)
    started = performance.now()
    const rows = (await countLines(await download(server.url + file.path, { authorization: `Bearer ${accessToken}` }))) - 1
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    runs.push({ name: file.name, rows, seconds, copyRows, copySeconds, idleMiB, peakMiB })
  }
  return runs
}

const KEY_QUERIES: { group: Group; name: string; why: string }[] = [
  { group: 'User list pages', name: 'page 50', why: 'user list, page 50: a walk of the newest-first index' },
  { group: 'User list pages', name: 'role MODERATOR, page 10', why: 'user list filtered by role' },
  { group: 'User sorts and filters (first 50 pages)', name: 'sort name asc, page 50', why: 'user list by name, page 50' },
  { group: 'User sorts and filters (first 50 pages)', name: 'sort lastSignInAt desc, page 50', why: 'user list by last sign-in, page 50' },
  { group: 'User sorts and filters (first 50 pages)', name: 'sort role desc, page 50', why: 'user list by role, page 50' },
  { group: 'User sorts and filters (first 50 pages)', name: 'no sign-in for 365 days, page 50', why: 'dormant accounts (a year), newest first, page 50' },
  { group: 'User sorts and filters (first 50 pages)', name: 'two-factor on, by name, page 50', why: 'two-factor on, by name, page 50' },
  { group: 'User searches', name: '"smith", page 1', why: 'user search, a common name' },
  { group: 'User searches', name: '"james.smith1", page 1', why: 'user search, a rare term' },
  { group: 'User searches', name: '"qz", page 1', why: 'user search, a rare two-letter term (no trigram)' },
  { group: 'Activity pages (first 50, filtered and searched)', name: 'page 50', why: 'activity log, page 50' },
  { group: 'Activity pages (first 50, filtered and searched)', name: '"deleted" entries, page 50', why: 'activity log filtered to a rare kind' },
  { group: 'Activity pages (first 50, filtered and searched)', name: '"john", page 50', why: 'activity search by a user name, about 1 entry in 100' },
  { group: 'Activity pages (first 50, filtered and searched)', name: '"james.smith1", page 1', why: 'activity search, a rare term' },
  { group: 'Statistics', name: 'totals and recent activity', why: 'statistics' },
]

export async function run(): Promise<string> {
  const loadAtStart = os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(', ')
  const url = await seededListsDatabase()
  const all = cases()

  console.log(`database: ${all.length} cases × ${REPEATS} repetitions...`)
  const database = await measureDatabase(url, all)

  console.log('EXPLAIN ANALYZE of the key queries...')
  const explainPool = new pg.Pool({ connectionString: url, max: 1 })
  const explained: string[] = []
  for (const key of KEY_QUERIES) {
    const statements = database.statements.filter((s) => s.group === key.group && s.name === key.name)
    explained.push(`### ${key.why}`, '')
    for (const { statement } of statements) {
      const plan = await explainAnalyze(explainPool, statement)
      explained.push('```sql', oneLine(statement), '```', '', '```', ...plan, '```', '')
    }
  }
  const sizes = await explainPool.query(`
    SELECT (SELECT sum(n) FROM user_counts)::bigint AS users, (SELECT sum(n) FROM activity_counts)::bigint AS activities,
      pg_size_pretty(pg_total_relation_size('users')) AS users_size, pg_size_pretty(pg_total_relation_size('activities')) AS activities_size,
      current_setting('server_version') AS version, current_setting('shared_buffers') AS shared_buffers`)
  await explainPool.end()

  console.log(`HTTP: ${HTTP_CONNECTIONS} connections, ${HTTP_SECONDS} s per group...`)
  const http = await measureHttp(url, all)
  const scim = await measureScim(url)

  const groups = Object.keys(TARGETS) as Group[]
  const dbRows = groups.map((group) => {
    const s = summarise(database.perGroup.get(group) ?? [])
    const drift = summarise(database.late.get(group) ?? []).p50 / summarise(database.early.get(group) ?? []).p50
    const met = s.p95 < TARGETS[group]
    return `| ${group} | ${s.count} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} | ${drift.toFixed(2)} | < ${TARGETS[group]} | ${met ? 'met' : 'NOT met'} |`
  })
  const httpRows = groups.map((group) => {
    const { single, loaded } = http.results.get(group)!
    const s = summarise(single.latencies)
    const l = summarise(loaded.latencies)
    const met = s.p95 < TARGETS[group]
    return `| ${group} | ${s.count} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | < ${TARGETS[group]} | ${met ? 'met' : 'NOT met'} | ${(loaded.requests / loaded.seconds).toFixed(0)} | ${ms(l.p50)} / ${ms(l.p95)} / ${ms(l.p99)} | ${single.failures + loaded.failures} |`
  })
  const overTarget = database.perCase.filter(({ group, summary }) => summary.p95 >= TARGETS[group])
  // Through HTTP, each call's own latencies (one client: answers come in the order asked).
  const httpPerCase = all.map((c) => ({ group: c.group, name: c.name, summary: summarise(http.perPath.get(c.path) ?? []) })).filter(({ summary }) => summary.count > 0)
  const httpOver = httpPerCase.filter(({ group, summary }) => summary.p95 >= TARGETS[group])
  const httpSlowRows = [...httpPerCase]
    .sort((a, b) => b.summary.p95 - a.summary.p95)
    .slice(0, 12)
    .map(({ group, name, summary }) => `| ${group} | ${name} | ${summary.count} | ${ms(summary.p50)} | ${ms(summary.p95)} | ${ms(summary.max)} |`)
  const exportRows = http.exports.map((run) => {
    const rate = run.rows / run.seconds
    const copyRate = run.copyRows / run.copySeconds
    const grew = run.peakMiB - run.idleMiB
    const met = rate >= copyRate / 2 && grew <= 50 && run.rows === run.copyRows
    return `| ${run.name} | ${run.rows.toLocaleString('en-US')} | ${run.seconds.toFixed(1)} | ${Math.round(rate).toLocaleString('en-US')} | ${Math.round(copyRate).toLocaleString('en-US')} (${run.copyRows.toLocaleString('en-US')} rows, ${run.copySeconds.toFixed(1)} s) | ${(rate / copyRate).toFixed(2)} | ${run.idleMiB} / ${run.peakMiB} (+${grew}) | ${met ? 'met' : 'NOT met'} |`
  })
  const slowest = [...database.perCase].sort((a, b) => b.summary.p95 - a.summary.p95).slice(0, 12)
  const slowRows = slowest.map(({ group, name, summary }) => `| ${group} | ${name} | ${ms(summary.p50)} | ${ms(summary.p95)} | ${ms(summary.max)} |`)
  const info = sizes.rows[0] as Record<string, string>

  return [
    '# Lists at scale',
    '',
    `Run by \`npm run bench -- lists\` on ${new Date().toISOString().slice(0, 10)}: ${machineLine()}.`,
    `PostgreSQL ${info.version} on the same machine (shared_buffers ${info.shared_buffers}, otherwise default settings), holding`,
    `${Number(info.users).toLocaleString('en-US')} users (${info.users_size} with indexes) and ${Number(info.activities).toLocaleString('en-US')} activity entries (${info.activities_size}),`,
    'seeded by `npm run db:seed` over two years, in time order.',
    '',
    `Cases: ${all.length} calls, each the API's own query: the user list pages 1 to 50 and filtered by role and status;`,
    `user searches for ${USER_SEARCHES.map((s) => `"${s}"`).join(', ')} (pages 1 and 3, and with filters);`,
    'the activity log pages 1 to 50, filtered by every activity type at pages 1, 10, 25 and 50, and searched for',
    `${ACTIVITY_SEARCHES.map((s) => `"${s}"`).join(', ')} at pages 1, 5, 25 and 50 (and with a type filter); statistics.`,
    "Every activity search page also computes its total (exact up to 1,000 matches, then the planner's estimate).",
    '',
    '## At the database',
    '',
    `Each case run ${REPEATS} times after one warm-up pass; time of the whole call (all its statements), in ms.`,
    '"Drift" is the median of the last 5 repetitions over the median of the first 5: a plan that degrades',
    'after repetition (as a cached generic plan can) shows as a drift well above 1. Statements run unnamed',
    '(node-postgres without `name`), so PostgreSQL plans each with its parameters.',
    '',
    '| Calls | Runs | p50 | p95 | p99 | max | Drift | Target p95 | |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...dbRows,
    '',
    `Plans compared between the first and the last repetition: ${database.checkedPlans} statements, ${database.changedPlans.length} changed` +
      (database.changedPlans.length > 0 ? ` (${[...new Set(database.changedPlans)].join('; ')}).` : '.'),
    '',
    'The slowest calls (by p95 over their repetitions), in ms:',
    '',
    '| Calls | Call | p50 | p95 | max |',
    '| --- | --- | --- | --- | --- |',
    ...slowRows,
    '',
    `Calls whose own p95 misses their target: ${overTarget.length} of ${database.perCase.length}` +
      (overTarget.length > 0
        ? ` (${overTarget
            .slice(0, 20)
            .map(({ group, name, summary }) => `${group}: ${name}, ${ms(summary.p95)} ms`)
            .join('; ')}${overTarget.length > 20 ? '; …' : ''}).`
        : '.'),
    '',
    '## Through HTTP',
    '',
    `The server (\`src/server/main.ts\`, RATE_LIMIT=off, LOG_LEVEL=warn) in its own process; autocannon in the benchmark`,
    `process, cycling through the group's calls as the signed-in bench admin (so every request also passes the session`,
    `check), ${HTTP_SECONDS} s with one client (the latency the targets are judged on), then ${HTTP_SECONDS} s with ${HTTP_CONNECTIONS} clients at once. On two`,
    'cores shared by the server, PostgreSQL and the load generator, several clients mostly measure queueing: their',
    'latencies and throughput are shown for what the machine sustains. Latency per request, in ms.',
    '',
    `| Calls | Requests (1 client) | p50 | p95 | p99 | Target p95 | | Req/s (${HTTP_CONNECTIONS} clients) | p50 / p95 / p99 (${HTTP_CONNECTIONS} clients) | Failures |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...httpRows,
    '',
    `Each call's own latencies through HTTP (one client), the slowest by p95, in ms; calls whose p95 misses the target: ${httpOver.length} of ${httpPerCase.length}.`,
    '',
    '| Calls | Call | Requests | p50 | p95 | max |',
    '| --- | --- | --- | --- | --- | --- |',
    ...httpSlowRows,
    '',
    '## CSV exports',
    '',
    "Each export downloaded whole through HTTP by the signed-in bench admin (no filters), the server's resident memory",
    "sampled every 100 ms against its memory just before; then PostgreSQL's own `COPY (the same rows, the same order)",
    "TO STDOUT WITH (FORMAT csv)` through psql, in the same run. Targets: at least half of COPY's rows per second, and",
    'the server within 50 MiB of its memory before the export (decision 0111).',
    '',
    '| Export | Rows | Seconds | Rows/s | COPY rows/s | Ratio | Server MiB before / peak | |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...exportRows,
    '',
    ...scimSection(scim),
    '',
    '## How',
    '',
    "- User list: the page's ids from a newest-first index (per role, status, or both; index-only past the skipped",
    "  users), then the page's rows; totals from trigger-kept counters (decision 0103).",
    "- Searches: one lower-case `search_text` per user and per activity entry (the entry's text, details and its",
    "  user's name and e-mail, kept current by triggers), trigram GIN indexes, LIKE on the lower-cased term, and",
    '  statistics target 1000 on those columns so the planner tells common terms from rare ones (0102).',
    '- User searches without three letters or digits in a row ("jo", "é", "a s") match anywhere too (`strpos`): rare ones',
    "  through a GIN index of the search text's characters and character pairs, common ones by the newest-first walk (0102).",
    "- Activity searches: from the planner's estimate and measured costs, one of three ways (0104, 0121): rare terms",
    '  are read all at once through the trigram index (up to 1,001, which also counts them); terms met soon by a',
    '  newest-first walk of an index that carries the search text (index-only; one partial index per activity filter);',
    '  deep pages and terms in between week by week, newest week first, each week one scan of the index of weeks,',
    '  kinds and trigrams, until the page is full. The index is asked for the runs of letters and digits of the term.',
    "- Totals under a search: exact up to 1,000 matches, the planner's estimate beyond (0103).",
    '- Statistics: sums over the counter tables (a few dozen rows) and the 10 newest entries; through HTTP the',
    "  dashboard's call also sums the last 30 days' sign-ups from their counter (at most 240 rows, 0119).",
    '',
    `Machine load (1, 5, 15 min) when the run started: ${loadAtStart}. Other work on the machine shares its two cores;`,
    'timings on an idle machine are lower. EXPLAIN ANALYZE below times every row and node, which costs much on this',
    "virtual machine's clock: its times are higher than the same statements' own (measured above).",
    '',
    '## EXPLAIN (ANALYZE, BUFFERS) of the key queries',
    '',
    ...explained,
  ].join('\n')
}

function oneLine(statement: Statement): string {
  const params = statement.parameters.map((p) => JSON.stringify(p instanceof Date ? p.toISOString() : p)).join(', ')
  return `${statement.sql.replace(/\s+/g, ' ').trim()}\n-- parameters: ${params}`
}
