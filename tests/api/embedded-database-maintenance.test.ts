import { sql } from 'kysely'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { EmbeddedDatabaseMaintenance } from '~server/db/maintenance'
import { Housekeeping } from '~server/jobs/housekeeping'
import { useTestApp } from '../support/test-app'

/**
 * The embedded database has no autovacuum (src/server/db/maintenance.ts, decision 0406):
 * housekeeping vacuums and analyses its tables, so that the space of deleted rows is used again
 * and the planner knows the tables. On PostgreSQL, autovacuum does it and housekeeping does not.
 */
const t = useTestApp()
const onPostgres = Boolean(process.env.TEST_DATABASE_URL)
const PAST = new Date('2020-01-01T00:00:00Z')

/** `count` expired authorization codes, as the protocol engine leaves them behind. */
async function expiredCodes(count: number, prefix: string) {
  await sql`
    INSERT INTO oidc_payloads (model, id, payload, expires_at)
    SELECT 'AuthorizationCode', ${prefix} || n, jsonb_build_object('padding', repeat('x', 400)), ${PAST}::timestamptz
      FROM generate_series(1, ${count}::int) AS n`.execute(t.ctx.db)
}

const tableBytes = async (table: string) => Number((await sql<{ bytes: string }>`SELECT pg_relation_size(${table}::regclass) AS bytes`.execute(t.ctx.db)).rows[0]!.bytes)

const housekeeping = () => new Housekeeping(t.ctx.db, t.clock.now, pino({ level: 'silent' }), t.ctx.dbKind)

describe.skipIf(onPostgres)('the embedded database, kept by housekeeping', () => {
  it('uses the space of what housekeeping deleted again, where without a vacuum the table would grow by as much', async () => {
    await expiredCodes(2000, 'first-')
    const filled = await tableBytes('oidc_payloads')
    await housekeeping().run()
    expect(Number((await sql<{ n: string }>`SELECT count(*) AS n FROM oidc_payloads WHERE id LIKE 'first-%'`.execute(t.ctx.db)).rows[0]!.n)).toBe(0)

    await expiredCodes(2000, 'second-')
    // Without the vacuum, the second 2,000 rows go after the first (about twice the size).
    expect(await tableBytes('oidc_payloads')).toBeLessThanOrEqual(filled * 1.1)
  })

  it('analyses a table that has rows and no statistics, and again once its row count has moved by more than a tenth', async () => {
    const maintenance = new EmbeddedDatabaseMaintenance(t.ctx.db)
    await sql`DELETE FROM oidc_payloads`.execute(t.ctx.db)
    await t.createUser()
    await expiredCodes(1000, 'a-')
    const first = await maintenance.run()
    expect(first.vacuumed).toEqual(expect.arrayContaining(['users', 'oidc_payloads', 'sessions']))
    expect(first.analysed).toEqual(expect.arrayContaining(['oidc_payloads']))
    const statistics = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_statistic WHERE starelid = 'oidc_payloads'::regclass`.execute(t.ctx.db)
    expect(Number(statistics.rows[0]!.n)).toBeGreaterThan(0)
    const counted = await sql<{ rows: number }>`SELECT reltuples::int AS rows FROM pg_class WHERE oid = 'oidc_payloads'::regclass`.execute(t.ctx.db)
    expect(counted.rows[0]!.rows).toBe(1000)

    // Nothing changed: nothing analysed again.
    expect((await maintenance.run()).analysed).toEqual([])
    // 100 rows more is a tenth of 1,000 (and 50): not yet; 60 more passes it.
    await expiredCodes(100, 'b-')
    expect((await maintenance.run()).analysed).toEqual([])
    await expiredCodes(60, 'c-')
    expect((await maintenance.run()).analysed).toEqual(['oidc_payloads'])
  })
})
