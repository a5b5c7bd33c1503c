import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedDatabase } from '~server/cli/seed'
import type { DatabaseHandle } from '~server/db/database'
import { openTestDatabase } from '../support/test-database'

/**
 * `npm run db:seed` before the first `npm start`: the server creates the first administrator (and
 * prints its password) only while no active administrator exists, and nobody knows a seeded
 * account's password. A seeded active administrator would leave a newcomer with no way in (about
 * one seed in twelve of the 200-account demo did).
 */
describe('`npm run db:seed` and the first administrator', () => {
  let handle: DatabaseHandle
  beforeAll(async () => {
    handle = await openTestDatabase()
  })
  afterAll(() => handle?.close())

  it('seeds administrators among its accounts, none of them active', async () => {
    // 20,000 accounts: about ten administrators (one in 2,000), so some are seeded in every run.
    await seedDatabase(handle.db, { users: 20_000, activities: 10, log: () => {} })
    const { rows } = await sql<{ status: string; n: string }>`SELECT status, count(*) AS n FROM users WHERE role = 'ADMIN' GROUP BY status`.execute(handle.db)
    const byStatus = Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]))
    expect(Object.values(byStatus).reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0)
    expect(byStatus.ACTIVE ?? 0).toBe(0)
    // The other roles keep their share of every status.
    const { rows: active } = await sql<{ n: string }>`SELECT count(*) AS n FROM users WHERE role <> 'ADMIN' AND status = 'ACTIVE'`.execute(handle.db)
    expect(Number(active[0]!.n)).toBeGreaterThan(16_000)
  }, 90_000)
})
