/**
 * `npx tsx bench/support/explain-user-sorts.ts` (BENCH_DATABASE_URL: a seeded database): the
 * user list's statements for every sort key both ways and the dormant, verification and
 * two-factor filters, at pages 1 and 50, each with its EXPLAIN (ANALYZE, BUFFERS) summary: the
 * plan's nodes and indexes, the rows read and the time. For checking on a data set of any size
 * that each sort and filter walks an index instead of sorting the table (decision 0110).
 */
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { listUsers, type UserListInput } from '~server/data/users/user-list'
import type { Database } from '~server/db/types'
import { USER_SORTS } from '~shared/schemas/lists'

const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/accounts_bench'
const pool = new pg.Pool({ connectionString: url, max: 1 })
const recorded: { sql: string; parameters: readonly unknown[] }[] = []
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool }),
  log: (event) => {
    if (event.level === 'query') recorded.push({ sql: event.query.sql, parameters: event.query.parameters })
  },
})

type Case = [string, Partial<UserListInput>]
const cases: Case[] = []
for (const sort of USER_SORTS)
  for (const order of ['asc', 'desc'] as const) for (const page of [1, 50]) cases.push([`sort ${sort} ${order}, page ${page}`, { sort, order, page }])
for (const inactiveDays of [30, 90, 365]) for (const page of [1, 50]) cases.push([`no sign-in for ${inactiveDays} days, page ${page}`, { inactiveDays, page }])
for (const [name, input] of [
  ['no sign-in for 365 days, by last sign-in desc', { inactiveDays: 365, sort: 'lastSignInAt', order: 'desc' }],
  ['unverified', { verified: false }],
  ['two-factor on', { mfa: true }],
  ['two-factor on, by name', { mfa: true, sort: 'name', order: 'asc' }],
  ['role ADMIN, by name', { role: 'ADMIN', sort: 'name', order: 'asc' }],
  ['status SUSPENDED, by last sign-in', { status: 'SUSPENDED', sort: 'lastSignInAt', order: 'desc' }],
] as Case[])
  for (const page of [1, 50]) cases.push([`${name}, page ${page}`, { ...input, page }])

/** Node types and index names of a plan, depth first. */
function shape(plan: Record<string, unknown>): string {
  const here = [plan['Node Type'], plan['Index Name'] ?? plan['Relation Name'] ?? ''].filter(Boolean).join(' ')
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? []
  return children.length > 0 ? `${here} (${children.map(shape).join(', ')})` : here
}

for (const [name, input] of cases) {
  recorded.length = 0
  const started = performance.now()
  await listUsers(db, { page: 1, limit: 10, sort: 'createdAt', order: 'desc', now: new Date(), ...input })
  const elapsed = performance.now() - started
  const statements = recorded.filter((s) => !/^\s*EXPLAIN/i.test(s.sql) && !/user_counts/.test(s.sql))
  console.log(`\n## ${name}: ${elapsed.toFixed(1)} ms for the whole call`)
  for (const statement of statements) {
    const result = await pool.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.sql}`, statement.parameters as unknown[])
    const [top] = result.rows[0]['QUERY PLAN'] as [{ Plan: Record<string, unknown>; 'Execution Time': number }]
    const buffers = Number(top.Plan['Shared Hit Blocks'] ?? 0) + Number(top.Plan['Shared Read Blocks'] ?? 0)
    console.log(`- ${top['Execution Time'].toFixed(2)} ms, ${buffers} buffers: ${shape(top.Plan)}`)
  }
}
await db.destroy()
