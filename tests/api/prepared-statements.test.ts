import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { leaseDueDeliveries } from '~server/data/webhooks/deliveries'
import { compiledOnce } from '~server/db/prepared'
import type { Db } from '~server/db/types'
import { createAdapterClass } from '~server/oidc/adapter'
import { EngineRequest, engineRequest } from '~server/oidc/engine-request'
import { useTestApp } from '../support/test-app'
import { me, refresh, signInAs } from './auth/helpers'
import { codeAt, passwordStep, secondStep, turnOnTwoFactor } from './auth/two-factor-helpers'

/**
 * The statements on the hottest paths run as named statements, each parsed once per connection
 * and then planned once, generically (src/server/db/prepared.ts, decision 0009); every other
 * statement stays unnamed, so that a search is planned for its own term. One connection, so
 * that `pg_prepared_statements`, which lists one connection's statements, sees them all.
 */
const t = useTestApp({}, { poolSize: 1 })

interface Prepared {
  name: string
  statement: string
  generic_plans: number
}

async function prepared(): Promise<Prepared[]> {
  const { rows } = await sql<Prepared>`SELECT name, statement, generic_plans::int AS generic_plans FROM pg_prepared_statements`.execute(t.ctx.db)
  return rows
}

const find = (rows: Prepared[], pattern: RegExp) => rows.filter((row) => pattern.test(row.statement))

const HOT = {
  sessionCheck: /from "sessions" as "s" inner join "users" as "u"/,
  credentials: /"password_hash" from "users" where "email" = \$1/,
  sessionStart: /SELECT start_session\(/,
  rotation: /FROM rotate_refresh_token\(/,
  secondStepRead: /from "mfa_challenges" as "c"/,
  secondStepUse: /SELECT use_second_step\(/,
  devices: /to_char\(.*from "sessions" where "user_id" = \$1 and "revoked_at" is null/,
}

/** Named too, off the request path or beside it: the event a change reports, and the webhook sender's lease (decision 0564). */
const ALSO_NAMED = {
  eventInsert: /INSERT INTO webhook_events/,
  deliveryLease: /UPDATE webhook_deliveries SET leased_until/,
}

// PostgreSQL plans a named statement for its values on its first five runs, then generically.
const RUNS = 7

describe('statements on the hottest paths', () => {
  it('the session check, the credentials read, the session start, the refresh, the second sign-in step and the devices list run named, with a generic plan', async () => {
    const user = await t.createUser()
    let session = await signInAs(t, user)
    for (let run = 1; run < RUNS; run++) session = await signInAs(t, user)
    for (let run = 0; run < RUNS; run++) expect((await me(t, session.accessToken)).statusCode).toBe(200)
    for (let run = 0; run < RUNS; run++) expect((await t.request('GET', '/api/auth/sessions', { token: session.accessToken })).statusCode).toBe(200)
    let refreshToken = session.refreshToken
    for (let run = 0; run < RUNS; run++) {
      const answer = await refresh(t, refreshToken)
      expect(answer.statusCode).toBe(200)
      refreshToken = answer.json().data.refreshToken
    }
    const withCodes = { ...(await t.createUser()), accessToken: session.accessToken }
    const signedIn = await signInAs(t, withCodes)
    const { secret } = await turnOnTwoFactor(t, { ...withCodes, ...signedIn })
    for (let run = 0; run < RUNS; run++) {
      expect((await secondStep(t, { mfaToken: await passwordStep(t, withCodes), code: codeAt(t, secret) })).statusCode).toBe(200)
      t.clock.advance(30)
    }

    const rows = await prepared()
    for (const pattern of Object.values(HOT)) {
      const statement = find(rows, pattern)
      expect(statement, String(pattern)).toHaveLength(1)
      expect(statement[0]!.name).toMatch(/^accounts_[0-9a-f]{16}$/)
      expect(statement[0]!.generic_plans).toBeGreaterThan(0)
    }
  })

  it('leave every other statement unnamed: a user search is planned for its own term', async () => {
    const admin = await signInAs(t, await t.createUser({ role: 'ADMIN' }))
    for (const term of ['ada', 'qz', 'example.com']) {
      const answer = await t.request('GET', `/api/admin/users?search=${term}`, { token: admin.accessToken })
      expect(answer.statusCode).toBe(200)
    }
    const rows = await prepared()
    expect(find(rows, /search_text/)).toEqual([])
    // The admin's requests ran the session check, so there is at least that one.
    expect(find(rows, HOT.sessionCheck)).toHaveLength(1)
    for (const row of rows)
      expect(
        [...Object.values(HOT), ...Object.values(ALSO_NAMED)].some((pattern) => pattern.test(row.statement)),
        row.statement,
      ).toBe(true)
  })

  it('the event a change reports runs named; the webhook lease does too, and its generic plan walks the due index in order, whatever the planner knows of the table', async () => {
    const user = await t.createUser()
    for (let run = 0; run < RUNS; run++) await signInAs(t, user)
    const now = t.clock.now()
    for (let run = 0; run < RUNS; run++)
      await leaseDueDeliveries(t.ctx.db, { now, leaseUntil: new Date(now.getTime() + 60_000), limit: 128, perEndpoint: 4, room: new Map() })
    const rows = await prepared()
    for (const pattern of Object.values(ALSO_NAMED)) {
      const statement = find(rows, pattern)
      expect(statement, String(pattern)).toHaveLength(1)
      expect(statement[0]!.generic_plans).toBeGreaterThan(0)
    }
    const [lease] = find(rows, ALSO_NAMED.deliveryLease)
    const plan = await genericPlan(lease!.statement, leaseValue)
    // The chosen ones are then locked and updated by their key.
    const byKey = (node: PlanNode) => [node, ...(node.Plans ?? [])].some((scan) => scan['Index Name'] === 'webhook_deliveries_pkey')
    // The due deliveries by the due index, in its order, up to the limit: never the whole table, sorted.
    const scans = flatten(plan).filter((node) => node['Node Type'].endsWith('Scan') && node['Relation Name'] === 'webhook_deliveries' && !byKey(node))
    expect(scans.length).toBeGreaterThan(0)
    for (const node of scans) expect(`${node['Node Type']} ${node['Index Name'] ?? ''}`, JSON.stringify(node)).toBe('Index Scan webhook_deliveries_due')
  })

  it('the webhook lease works out its candidates once, however many deliveries are due, with the generic plan made while none were', async () => {
    const now = t.clock.now()
    await leaseDueDeliveries(t.ctx.db, { now, leaseUntil: new Date(now.getTime() + 60_000), limit: 128, perEndpoint: 4, room: new Map() })
    const [lease] = find(await prepared(), ALSO_NAMED.deliveryLease)
    const seed = async (db: Db) => {
      await sql`INSERT INTO webhooks (id, url, events, secret, created_at, updated_at)
        SELECT 'wh_probe_' || n, 'https://receiver.example.com/' || n, '{*}', '\\x00', now(), now() FROM generate_series(1, 2) AS n`.execute(db)
      await sql`INSERT INTO webhook_events (id, type, data, created_at)
        SELECT 'msg_probe_' || n, 'webhook.test', '{}', now() FROM generate_series(1, 300) AS n`.execute(db)
      await sql`INSERT INTO webhook_deliveries (id, webhook_id, event_id, next_attempt_at, created_at)
        SELECT 'whd_probe_' || e || '_' || w, 'wh_probe_' || w, 'msg_probe_' || e, now() - interval '1 minute', now()
        FROM generate_series(1, 300) AS e, generate_series(1, 2) AS w`.execute(db)
    }
    try {
      const plan = await genericPlan(lease!.statement, leaseValue, { analyze: true, before: seed })
      // 600 due: the old statement joined each of them to the candidates, sorting and numbering them again each time.
      const windows = flatten(plan).filter((node) => node['Node Type'] === 'WindowAgg')
      expect(windows.length).toBeGreaterThan(0)
      for (const node of windows) expect(node['Actual Loops'], JSON.stringify(node)).toBe(1)
      expect(plan['Actual Rows']).toBe(128)
    } finally {
      await sql`DELETE FROM webhooks WHERE id LIKE 'wh_probe_%'`.execute(t.ctx.db)
      await sql`DELETE FROM webhook_events WHERE id LIKE 'msg_probe_%'`.execute(t.ctx.db)
    }
  })

  it('a statement compiled once (compiledOnce) takes each call’s values, and refuses a value that would be part of its text', async () => {
    const byEmail = compiledOnce((email: string, after: Date) => t.ctx.db.selectFrom('users').select('id').where('email', '=', email).where('created_at', '>', after))
    const [ada, grace] = [await t.createUser(), await t.createUser()]
    expect((await t.ctx.db.executeQuery(byEmail(ada.email, new Date(0)))).rows).toEqual([{ id: ada.id }])
    expect((await t.ctx.db.executeQuery(byEmail(grace.email, new Date(0)))).rows).toEqual([{ id: grace.id }])
    expect((await t.ctx.db.executeQuery(byEmail(grace.email, new Date('2200-01-01T00:00:00Z')))).rows).toEqual([])
    const columnNamed = compiledOnce((column: string) => t.ctx.db.selectFrom('users').select(sql.ref(column).as('value')))
    expect(() => columnNamed('email')).toThrow(/not a parameter/)
  })

  it('UserInfo’s statement (an access token with its grant, account, product session and app) reads every table by key in its generic plan, whatever the planner knows of them', async () => {
    const AccessToken = new (createAdapterClass(t.ctx.db))('AccessToken')
    for (let run = 0; run < RUNS; run++) await engineRequest.run(new EngineRequest(), () => AccessToken.find(`no-such-token-${run}`))
    const [statement] = find(await prepared(), /from "oidc_payloads" as "t"/)
    expect(statement).toBeDefined()
    // The plan every later run takes: generic, on tables the planner may know nothing of (a new
    // embedded database is never analysed until housekeeping does it, decision 0406).
    const plan = await genericPlan(statement!.statement, (type) => (type === 'timestamp with time zone' ? 'now()' : type === 'text' ? `'AccessToken'` : '1'))
    const nodes = flatten(plan)
    // Sessions by their key alone: never every live session, matched to the link afterwards.
    const sessionReads = nodes.filter((node) => node['Relation Name'] === 'sessions')
    expect(sessionReads.length).toBeGreaterThan(0)
    for (const node of sessionReads) expect(node['Index Name'] ?? node['Node Type'], JSON.stringify(node)).toBe('sessions_pkey')
    // The grant by its whole key, the model a literal: never every row of one model.
    const grantReads = nodes.filter((node) => node.Alias === 'grant')
    expect(grantReads.length).toBeGreaterThan(0)
    for (const node of grantReads) {
      const condition = [node['Index Cond'], ...(node.Plans ?? []).map((child) => child['Index Cond'])].join(' ')
      expect(condition, JSON.stringify(node)).toMatch(/model = 'Grant'::text\) AND \(.*id = t\.grant_id\)/)
    }
  })
})

/** The lease's values: its arrays empty, its times now, its numbers 128. */
const leaseValue = (type: string) => (type === 'timestamp with time zone' ? 'now()' : type.endsWith('[]') ? `'{}'` : '128')

/**
 * The generic plan of one statement, as every run after the fifth takes it, with `value(type)` for
 * each parameter. With `before`, the plan is made first and `before` runs after it (a plan is kept
 * however the table changes until it is analysed); with `analyze`, the plan is run, in a
 * transaction rolled back. The connection's other named statements stay.
 */
async function genericPlan(
  statement: string,
  value: (type: string) => string,
  options: { analyze?: boolean; before?: (db: Db) => Promise<void> } = {},
): Promise<PlanNode> {
  return t.ctx.db.connection().execute(async (db) => {
    await sql`SET plan_cache_mode = force_generic_plan`.execute(db)
    try {
      await sql.raw(`PREPARE probe_plan AS ${statement}`).execute(db)
      const types = await sql<{ types: string[] }>`SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = 'probe_plan'`.execute(db)
      const execute = `EXECUTE probe_plan(${types.rows[0]!.types.map(value).join(', ')})`
      const explain = async (how: string) =>
        (await sql.raw<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (${how}) ${execute}`).execute(db)).rows[0]!['QUERY PLAN'][0].Plan
      if (options.before) {
        await explain('FORMAT JSON')
        await options.before(db)
      }
      if (!options.analyze) return await explain('FORMAT JSON')
      await sql`BEGIN`.execute(db)
      try {
        return await explain('ANALYZE, FORMAT JSON')
      } finally {
        await sql`ROLLBACK`.execute(db)
      }
    } finally {
      await sql`DEALLOCATE probe_plan`.execute(db)
      await sql`RESET plan_cache_mode`.execute(db)
    }
  })
}

interface PlanNode {
  'Node Type': string
  'Actual Loops'?: number
  'Actual Rows'?: number
  'Relation Name'?: string
  Alias?: string
  'Index Name'?: string
  'Index Cond'?: string
  Plans?: PlanNode[]
}

const flatten = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(flatten)]
