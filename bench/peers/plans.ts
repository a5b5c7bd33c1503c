import crypto from 'node:crypto'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { listUsers } from '~server/data/users/user-list'
import { userColumns } from '~server/data/users/users'
import type { Database } from '~server/db/types'
import { createBetterAuth } from './better-auth'

/**
 * Query plans under repetition, for both systems' session check and user search. PostgreSQL
 * plans an unnamed statement afresh on every run, with its values; a named (prepared) statement,
 * after five runs on a connection, may switch to one generic plan made without them, which for a
 * search can be hundreds of times slower (docs/decisions/0009). So for every statement each
 * system sends, we record how it sends it, run it 10 times as it is sent and 10 times named,
 * and compare the plans and times.
 */
export interface Statement {
  system: string
  what: string
  sql: string
  parameters: readonly unknown[]
  /** Whether the system sends it named (node-postgres `name`), so that it can go generic. */
  named: boolean
}

export interface PlanCheck extends Statement {
  customPlan: string
  /** After 10 runs as a named statement: its plan, and whether it is the generic one. */
  namedPlan: string
  namedIsGeneric: boolean
  /** Median of the last 5 of 10 runs, ms: unnamed (planned each time), and named. */
  unnamedMs: number
  namedMs: number
}

function recordingDatabase<T>(url: string, into: { sql: string; parameters: readonly unknown[] }[]): Kysely<T> {
  const pool = new pg.Pool({ connectionString: url, max: 1 })
  return new Kysely<T>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') into.push({ sql: event.query.sql, parameters: event.query.parameters })
    },
  })
}

/** Our statements: the search's (src/server/data/users/user-list.ts) and the session check's. */
export async function ourStatements(url: string, terms: string[]): Promise<Statement[]> {
  const recorded: { sql: string; parameters: readonly unknown[] }[] = []
  const db = recordingDatabase<Database>(url, recorded)
  const statements: Statement[] = []
  try {
    for (const term of terms) {
      recorded.length = 0
      await listUsers(db, { page: 1, limit: 10, search: term, sort: 'createdAt', order: 'desc', now: new Date() })
      // The planner-estimate statements (EXPLAIN) are part of the call, not plans of their own.
      for (const s of recorded.filter((s) => !/^\s*EXPLAIN/i.test(s.sql))) statements.push({ system: 'Accounts', what: `search "${term}"`, ...s, named: false })
    }
    // The session check of every signed-in request, built as src/server/http/auth-guard.ts
    // builds it (and sent named, docs/decisions/0009), for a live session of the bench admin.
    const session = (await db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['sessions.id', 'sessions.user_id'])
      .where('users.email', '=', 'bench0@example.com')
      .where('sessions.revoked_at', 'is', null)
      .executeTakeFirstOrThrow()) as { id: string; user_id: string }
    const check = db
      .selectFrom('sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select(userColumns.map((column) => `u.${column}` as const))
      .where('s.id', '=', session.id)
      .where('s.user_id', '=', session.user_id)
      .where('s.revoked_at', 'is', null)
      .where('s.expires_at', '>', new Date())
      .compile()
    statements.push({ system: 'Accounts', what: 'session check', sql: check.sql, parameters: check.parameters, named: true })
  } finally {
    await db.destroy()
  }
  return statements
}

/** Better Auth's statements, recorded from its own code (in this process, on its database). */
export async function betterAuthStatements(
  url: string,
  terms: string[],
  admin: { email: string; password: string },
  searchQuery: (term: string) => Record<string, string>,
): Promise<Statement[]> {
  const recorded: { sql: string; parameters: readonly unknown[] }[] = []
  const db = recordingDatabase<unknown>(url, recorded)
  const auth = createBetterAuth({ baseURL: 'http://127.0.0.1', secret: crypto.randomBytes(32).toString('hex'), database: { db, type: 'postgres' } })
  const statements: Statement[] = []
  try {
    const signedIn = await auth.api.signInEmail({ body: admin, asResponse: true })
    const headers = new Headers({
      cookie: signedIn.headers
        .getSetCookie()
        .map((line) => line.split(';')[0])
        .join('; '),
    })
    recorded.length = 0
    await auth.api.getSession({ headers })
    for (const s of recorded) statements.push({ system: 'Better Auth', what: 'session check', ...s, named: false })
    for (const term of terms) {
      recorded.length = 0
      await auth.api.listUsers({ headers, query: searchQuery(term) })
      // The first two read the admin's session, as above.
      for (const s of recorded.slice(2)) statements.push({ system: 'Better Auth', what: `search "${term}"`, ...s, named: false })
    }
  } finally {
    await db.destroy()
  }
  return statements
}

/** A plan's shape: node types, relations and indexes, without costs or row counts. */
function planShape(plan: Record<string, unknown>): string {
  const parts = [String(plan['Node Type']), plan['Index Name'] ?? plan['Relation Name'] ?? ''].filter(Boolean).join(' ')
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? []
  return children.length > 0 ? `${parts} (${children.map(planShape).join(', ')})` : parts
}

function literal(client: pg.Client, value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (value instanceof Date) return client.escapeLiteral(value.toISOString())
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return client.escapeLiteral(String(value))
}

async function timedRuns(run: () => Promise<unknown>, times: number): Promise<number[]> {
  const ms: number[] = []
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    await run()
    ms.push(performance.now() - started)
  }
  return ms
}

const lastFiveMedian = (ms: number[]) => [...ms.slice(-5)].sort((a, b) => a - b)[2]!

export async function checkPlans(url: string, statements: Statement[]): Promise<PlanCheck[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const checks: PlanCheck[] = []
  try {
    for (const [i, statement] of statements.entries()) {
      const values = [...statement.parameters]
      const custom = await client.query(`EXPLAIN (FORMAT JSON) ${statement.sql}`, values)
      const unnamed = await timedRuns(() => client.query({ text: statement.sql, values }), 10)
      const name = `peers_plan_${i}`
      const named = await timedRuns(() => client.query({ name, text: statement.sql, values }), 10)
      const explained = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE ${name}(${values.map((value) => literal(client, value)).join(', ')})`)
      const namedPlan = (explained.rows[0]['QUERY PLAN'] as [{ Plan: Record<string, unknown> }])[0].Plan
      checks.push({
        ...statement,
        customPlan: planShape((custom.rows[0]['QUERY PLAN'] as [{ Plan: Record<string, unknown> }])[0].Plan),
        namedPlan: planShape(namedPlan),
        // A generic plan compares with the parameters themselves ($1...), not with their values.
        namedIsGeneric: values.length > 0 && /\$\d/.test(JSON.stringify(namedPlan)),
        unnamedMs: lastFiveMedian(unnamed),
        namedMs: lastFiveMedian(named),
      })
    }
  } finally {
    await client.end()
  }
  return checks
}
