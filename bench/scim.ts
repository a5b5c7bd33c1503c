import http from 'node:http'
import { performance } from 'node:perf_hooks'
import { hash } from '@node-rs/argon2'
import autocannon from 'autocannon'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { listScimUsers } from '~server/data/scim/scim-users'
import type { Database } from '~server/db/types'
import { parseFilter } from '~server/scim/filter'
import { resolveUserFilter } from '~server/scim/user-filter'
import { signIn } from './support/accounts'
import { seededListsDatabase } from './support/lists-data'
import { machineLine, query, startServer } from './support/server'
import { percentile } from './support/percentile'

/**
 * SCIM at a million accounts (contract section 13, decision 0530): what a directory asks of
 * `/scim/v2` on the lists benchmark's data set (1,000,000 users), through HTTP with a service
 * application's API key, the real server in its own process:
 *
 *   - the lookups Entra ID and Okta make before every change: `userName eq`, `externalId eq`,
 *     `emails[type eq "work"].value eq`, and a read by id; one client at a time for LOOKUP_SECONDS each,
 *     cycling through 2,000 accounts sampled across the table;
 *   - a full reconciliation read: `GET /Users?startIndex=…&count=200` from the first account to the
 *     last, one page after the other as a directory reads them.
 *
 * Targets: each lookup p95 < 50 ms; the full read at no less than 5,000 users a second. The plan of
 * each lookup's statements is shown (EXPLAIN ANALYZE of the statements the data layer builds).
 *
 * Accounts get the `externalId` a directory would have given them, a share each run (kept for later runs).
 */
const LOOKUP_SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const PAGE = 200
const ADMIN_EMAIL = 'scim-bench-admin@example.com'
const ADMIN_PASSWORD = 'Scim-Bench-Admin-42!'
const SAMPLE = 2_000
const LOOKUP_TARGET_MS = 50
const FULL_READ_TARGET = 5_000
const EXTERNAL_ID_SECONDS = Number(process.env.BENCH_EXTERNAL_ID_SECONDS ?? 120)

interface Sampled {
  id: string
  email: string
  external_id: string
}

interface Lookup {
  name: string
  filter: (account: Sampled) => string | null
  path: (account: Sampled) => string
}

const LOOKUPS: Lookup[] = [
  { name: 'userName eq', filter: (a) => `userName eq "${a.email}"`, path: (a) => `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${a.email}"`)}` },
  {
    name: 'externalId eq',
    filter: (a) => `externalId eq "${a.external_id}"`,
    path: (a) => `/scim/v2/Users?filter=${encodeURIComponent(`externalId eq "${a.external_id}"`)}`,
  },
  {
    name: 'emails[type eq "work"].value eq',
    filter: (a) => `emails[type eq "work"].value eq "${a.email}"`,
    path: (a) => `/scim/v2/Users?filter=${encodeURIComponent(`emails[type eq "work"].value eq "${a.email}"`)}`,
  },
  { name: 'read by id', filter: () => null, path: (a) => `/scim/v2/Users/${a.id}` },
]

/**
 * Gives accounts the externalId a directory would have sent (`hr-` and 12 hex digits), 10,000 at a
 * time, for at most EXTERNAL_ID_SECONDS per run (each account's row and its 30-odd index entries are
 * rewritten: a million take most of an hour on this machine); later runs go on where it stopped.
 * Says how many accounts have one.
 */
async function giveExternalIds(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const started = performance.now()
    let given = 0
    while (performance.now() - started < EXTERNAL_ID_SECONDS * 1000) {
      const batch = await client.query(
        `UPDATE users SET scim_external_id = 'hr-' || substr(md5(id::text), 1, 12)
         WHERE id IN (SELECT id FROM users WHERE scim_external_id IS NULL LIMIT 10000)`,
      )
      given += batch.rowCount ?? 0
      if ((batch.rowCount ?? 0) < 10_000) break
    }
    if (given > 0) {
      console.log(`gave ${given.toLocaleString('en-US')} accounts an externalId`)
      await client.query('VACUUM (ANALYZE) users')
    }
    const have = await client.query<{ n: string }>('SELECT count(*) AS n FROM users WHERE scim_external_id IS NOT NULL')
    return Number(have.rows[0]!.n)
  } finally {
    await client.end()
  }
}

async function sample(url: string): Promise<Sampled[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const rows = await client.query<Sampled>(
      `SELECT id, email, scim_external_id AS external_id FROM users TABLESAMPLE SYSTEM (1) WHERE scim_external_id IS NOT NULL LIMIT ${SAMPLE}`,
    )
    return rows.rows
  } finally {
    await client.end()
  }
}

/** The statements the data layer runs for one lookup, each with EXPLAIN ANALYZE after five runs of it (a prepared statement may switch plans then). */
async function explainLookups(url: string, account: Sampled): Promise<string[]> {
  const statements: { sql: string; parameters: readonly unknown[] }[] = []
  const pool = new pg.Pool({ connectionString: url, max: 1 })
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') statements.push({ sql: event.query.sql, parameters: event.query.parameters })
    },
  })
  const out: string[] = []
  try {
    for (const lookup of LOOKUPS) {
      const filter = lookup.filter(account)
      if (filter === null) continue
      statements.length = 0
      await listScimUsers(db, { filter: resolveUserFilter(parseFilter(filter)), startIndex: 1, count: 100 })
      const seen = [...statements]
      out.push(`### \`${lookup.name}\``, '')
      for (const [index, statement] of seen.entries()) {
        const client = await pool.connect()
        try {
          const name = `scim_bench_${index}`
          await client.query(`PREPARE ${name} AS ${statement.sql}`)
          const args = statement.parameters.map((p) => client.escapeLiteral(String(p))).join(', ')
          const execute = `EXECUTE ${name}${args ? `(${args})` : ''}`
          for (let i = 0; i < 6; i++) await client.query(execute)
          const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${execute}`)
          await client.query(`DEALLOCATE ${name}`)
          out.push('```sql', statement.sql.replace(/\s+/g, ' ').trim(), `-- parameters: ${statement.parameters.map((p) => JSON.stringify(p)).join(', ')}`, '```', '')
          out.push('```', ...plan.rows.map((row) => row['QUERY PLAN']), '```', '')
        } finally {
          client.release()
        }
      }
    }
  } finally {
    await db.destroy()
  }
  return out
}

function getJson(base: string, path: string, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { headers: { authorization: `Bearer ${key}`, accept: 'application/scim+json' } }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }))
        response.on('error', reject)
      })
      .on('error', reject)
  })
}

export interface ScimResults {
  lookups: { name: string; requests: number; p50: number; p95: number; p99: number; failures: number }[]
  fullRead: { users: number; total: number; seconds: number; pageP50: number; pageP95: number; pageMax: number; peakMiB: number; idleMiB: number }
  explained: string[]
  withExternalId: number
}

/** The SCIM measurements on a seeded lists database (`url`). */
export async function measureScim(url: string): Promise<ScimResults> {
  const withExternalId = await giveExternalIds(url)
  const accounts = await sample(url)
  if (accounts.length === 0) throw new Error('the lists data set has no accounts to look up')

  const passwordHash = await hash(ADMIN_PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  await query(url, [
    `INSERT INTO users (name, email, password_hash, role, status, email_verified_at)
     VALUES ('SCIM Bench Admin', $1, $2, 'ADMIN', 'ACTIVE', now())
     ON CONFLICT (email) DO UPDATE SET password_hash = EXCLUDED.password_hash, role = 'ADMIN', status = 'ACTIVE',
       email_verified_at = coalesce(users.email_verified_at, now())`,
    [ADMIN_EMAIL, passwordHash],
  ])

  console.log('SCIM: EXPLAIN ANALYZE of the lookups...')
  const explained = await explainLookups(url, accounts[0]!)

  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off', API_RATE_LIMIT: '1000000', LOG_LEVEL: 'warn' })
  try {
    const admin = await signIn(server.url, ADMIN_EMAIL, ADMIN_PASSWORD)
    const headers = { authorization: `Bearer ${admin.accessToken}`, 'x-csrf-token': admin.csrfToken, 'content-type': 'application/json' }
    const created = await fetch(`${server.url}/api/admin/applications`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `SCIM bench ${new Date().toISOString()}`, type: 'service', scopes: ['scim'] }),
    })
    if (created.status !== 201) throw new Error(`creating the service application: ${created.status} ${await created.text()}`)
    const application = ((await created.json()) as { data: { application: { id: string } } }).data.application
    const keyed = await fetch(`${server.url}/api/admin/applications/${application.id}/keys`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })
    if (keyed.status !== 201) throw new Error(`creating the API key: ${keyed.status} ${await keyed.text()}`)
    const key = ((await keyed.json()) as { data: { secret: string } }).data.secret

    // Every lookup must find its account before it is timed.
    for (const lookup of LOOKUPS) {
      const answer = await getJson(server.url, lookup.path(accounts[0]!), key)
      const found = lookup.filter(accounts[0]!) === null ? answer.status === 200 : answer.body.totalResults === 1
      if (!found) throw new Error(`${lookup.name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`)
    }

    const lookups: ScimResults['lookups'] = []
    for (const lookup of LOOKUPS) {
      console.log(`SCIM: ${lookup.name}, one client, ${LOOKUP_SECONDS} s...`)
      const latencies: number[] = []
      let next = 0
      const result = await new Promise<autocannon.Result>((resolve, reject) => {
        const instance = autocannon(
          {
            url: server.url,
            connections: 1,
            duration: LOOKUP_SECONDS,
            headers: { authorization: `Bearer ${key}`, accept: 'application/scim+json' },
            requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: lookup.path(accounts[next++ % accounts.length]!) }) }],
          },
          (error, done) => (error ? reject(error) : resolve(done)),
        )
        instance.on('response', (_client, statusCode, _bytes, responseTime) => {
          if (statusCode === 200) latencies.push(responseTime)
        })
      })
      latencies.sort((a, b) => a - b)
      lookups.push({
        name: lookup.name,
        requests: latencies.length,
        p50: percentile(latencies, 50),
        p95: percentile(latencies, 95),
        p99: percentile(latencies, 99),
        failures: result.non2xx + result.errors + result.timeouts,
      })
    }

    console.log('SCIM: full read, 200 at a time...')
    const idleMiB = server.rssMiB()
    let peakMiB = idleMiB
    const pageTimes: number[] = []
    let users = 0
    let total = Infinity
    const started = performance.now()
    for (let startIndex = 1; startIndex <= total; startIndex += PAGE) {
      const before = performance.now()
      const page = await getJson(server.url, `/scim/v2/Users?startIndex=${startIndex}&count=${PAGE}`, key)
      pageTimes.push(performance.now() - before)
      if (page.status !== 200) throw new Error(`page at ${startIndex}: ${page.status} ${JSON.stringify(page.body).slice(0, 300)}`)
      total = Number(page.body.totalResults)
      const resources = page.body.Resources as unknown[]
      users += resources.length
      if (resources.length === 0) break
      if (pageTimes.length % 250 === 0) {
        peakMiB = Math.max(peakMiB, server.rssMiB())
        process.stdout.write(`\r  ${users.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`)
      }
    }
    const seconds = (performance.now() - started) / 1000
    process.stdout.write('\n')
    pageTimes.sort((a, b) => a - b)
    return {
      lookups,
      fullRead: { users, total, seconds, pageP50: percentile(pageTimes, 50), pageP95: percentile(pageTimes, 95), pageMax: pageTimes.at(-1) ?? NaN, peakMiB, idleMiB },
      explained,
      withExternalId,
    }
  } finally {
    await server.stop()
  }
}

const ms = (value: number) => value.toFixed(1)

/** The section of the lists page on SCIM. */
export function scimSection(results: ScimResults): string[] {
  const { fullRead } = results
  const rate = fullRead.users / fullRead.seconds
  return [
    '## SCIM (`/scim/v2`) at this scale',
    '',
    "Through HTTP with a service application's API key (`scim` scope), the server (`src/server/main.ts`) in its own process. Each lookup one client at a",
    `time for ${LOOKUP_SECONDS} s, cycling through ${SAMPLE.toLocaleString('en-US')} accounts sampled across those with the \`externalId\` a directory would have`,
    `given them (${results.withExternalId.toLocaleString('en-US')} accounts have one; the index holds only those). Latency per request, in ms.`,
    '',
    '| Lookup | Requests | p50 | p95 | p99 | Target p95 | | Failures |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...results.lookups.map(
      (l) =>
        `| ${l.name} | ${l.requests} | ${ms(l.p50)} | ${ms(l.p95)} | ${ms(l.p99)} | < ${LOOKUP_TARGET_MS} | ${l.p95 < LOOKUP_TARGET_MS ? 'met' : 'NOT met'} | ${l.failures} |`,
    ),
    '',
    `A full reconciliation read: \`GET /scim/v2/Users?startIndex=…&count=${PAGE}\` from 1 to the end, one page after the other, as a directory reads`,
    'them (each next page read from where the last stopped, decision 0532).',
    '',
    '| Users read | totalResults | Seconds | Users/s | Page p50 / p95 / max (ms) | Server MiB before / peak | Target | |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    `| ${fullRead.users.toLocaleString('en-US')} | ${fullRead.total.toLocaleString('en-US')} | ${fullRead.seconds.toFixed(1)} | ${Math.round(rate).toLocaleString('en-US')} | ${ms(fullRead.pageP50)} / ${ms(fullRead.pageP95)} / ${ms(fullRead.pageMax)} | ${fullRead.idleMiB} / ${fullRead.peakMiB} | ≥ ${FULL_READ_TARGET.toLocaleString('en-US')} users/s | ${rate >= FULL_READ_TARGET && fullRead.users === fullRead.total ? 'met' : 'NOT met'} |`,
    '',
    '### Plans of the lookups (EXPLAIN ANALYZE after five runs of each statement as a prepared statement)',
    '',
    ...results.explained,
  ]
}

/** `npm run bench -- scim`: the SCIM part of the lists benchmark alone, on its data set. */
export async function run(): Promise<string> {
  const url = await seededListsDatabase()
  const results = await measureScim(url)
  return [
    '# SCIM at a million accounts',
    '',
    `Run by \`npm run bench -- scim\` on ${new Date().toISOString().slice(0, 10)}: ${machineLine()}. The lists benchmark's data set`,
    '(`npm run bench -- lists` measures the same as part of its run).',
    '',
    ...scimSection(results),
  ].join('\n')
}
