import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedDatabase } from '~server/cli/seed'
import type { DatabaseHandle } from '~server/db/database'
import type { Database } from '~server/db/types'
import { ensureAccount } from '~server/use-cases/users/ensure-account'
import { type SignedIn, STRONG_PASSWORD, uniqueEmail, useTestApp } from '../support/test-app'
import { openTestDatabase } from '../support/test-database'
import { mailTo, newVisitor, register, tokenOf } from './auth/helpers'
import { as, expectSuccess } from './helpers/requests'
import { quickSignIn } from './helpers/users'

/**
 * The sign-ups per UTC day of the admin dashboard come from `sign_ups_by_day`, a counter kept by
 * triggers on `users` (migration 0017, decision 0119). Whatever makes or removes an account, the
 * counter must say what a count of the users table says, day by day.
 */

type PerDay = Record<string, number>

/** The counter's number of each UTC day, summed over its slots (days at zero left out). */
async function counter(db: Kysely<Database>): Promise<PerDay> {
  const { rows } = await sql<{ day: string; n: string }>`
    SELECT day::text AS day, sum(n) AS n FROM sign_ups_by_day GROUP BY day HAVING sum(n) <> 0 ORDER BY day`.execute(db)
  return Object.fromEntries(rows.map((row) => [row.day, Number(row.n)]))
}

/** The accounts of each UTC day counted the slow way: every row of the users table, its day taken in JavaScript. */
async function counted(db: Kysely<Database>): Promise<PerDay> {
  const rows = await db.selectFrom('users').select('created_at').execute()
  const days: PerDay = {}
  for (const row of rows) {
    const day = new Date(row.created_at).toISOString().slice(0, 10)
    days[day] = (days[day] ?? 0) + 1
  }
  return Object.fromEntries(Object.entries(days).sort(([a], [b]) => a.localeCompare(b)))
}

/** Accounts written straight into the table in one statement, at the given times (SQL timestamptz literals). */
async function insertAt(db: Kysely<Database>, times: string[]): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    INSERT INTO users (name, email, password_hash, role, status, email_verified_at, created_at, updated_at)
    SELECT 'Boundary Person', 'at' || ordinality || '-' || ${uniqueEmail('boundary')}, 'not-a-hash', 'CLIENT', 'ACTIVE', NULL, at, at
    FROM unnest(${times}::timestamptz[]) WITH ORDINALITY AS times (at, ordinality)
    RETURNING id`.execute(db)
  return rows.map((row) => row.id)
}

const plus = (days: PerDay, changes: PerDay): PerDay => {
  const result = { ...days }
  for (const [day, n] of Object.entries(changes)) result[day] = (result[day] ?? 0) + n
  return Object.fromEntries(Object.entries(result).filter(([, n]) => n !== 0))
}

describe('the sign-ups counter', () => {
  const t = useTestApp()
  let admin: SignedIn
  beforeAll(async () => {
    admin = await quickSignIn(t, { role: 'ADMIN' })
  })
  const today = () => t.clock.now().toISOString().slice(0, 10)

  /** Runs a change and checks that the counter moved by exactly `changes` and agrees with a count of the table. */
  async function expectChange(changes: PerDay, change: () => Promise<unknown>) {
    const before = await counter(t.ctx.db)
    await change()
    const after = await counter(t.ctx.db)
    expect(after).toEqual(plus(before, changes))
    expect(after).toEqual(await counted(t.ctx.db))
  }

  it('was filled by its migration and agrees with the table before anything happens', async () => {
    expect(await counter(t.ctx.db)).toEqual(await counted(t.ctx.db))
    expect(await counter(t.ctx.db)).toEqual({ [today()]: 1 })
  })

  it('counts a registration on its UTC day, and not a registration with an address already taken', async () => {
    const visitor = newVisitor()
    await expectChange({ [today()]: 1 }, async () => expect((await register(t, visitor)).statusCode).toBe(201))
    await expectChange({}, async () => expect((await register(t, { ...visitor, name: 'Someone Else' })).statusCode).toBe(201))
  })

  it('counts an invitation when it is sent, and nothing more when it is accepted', async () => {
    const email = uniqueEmail('invitee')
    await expectChange({ [today()]: 1 }, async () => expectSuccess(await as(t, admin).post('/api/admin/users', { name: 'Grace Hopper', email, role: 'DEVELOPER' }), 201))
    const mail = (await mailTo(t, email)).find((sent) => sent.subject === 'You are invited - Accounts')!
    const link = mail.links.map((url) => new URL(url)).find((url) => url.pathname === '/accept-invite')!
    await expectChange({}, async () =>
      expectSuccess(await t.request('POST', `/api/auth/accept-invite/${tokenOf(link)}`, { body: { password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD } })),
    )
  })

  it('counts an account made as `npm run user:create` makes it, and not the same command run again on it', async () => {
    const email = uniqueEmail('operator')
    await expectChange({ [today()]: 1 }, () => ensureAccount(t.ctx, { email, role: 'MODERATOR', password: STRONG_PASSWORD, reason: 'Created from the command line' }))
    await expectChange({}, () => ensureAccount(t.ctx, { email, role: 'DEVELOPER', reason: 'Created from the command line' }))
  })

  it('takes a deleted account off the day it was created, not the day it was deleted', async () => {
    const [id] = await insertAt(t.ctx.db, ['2026-05-20 08:00:00+00'])
    expect((await counter(t.ctx.db))['2026-05-20']).toBe(1)
    // Only an inactive account may be deleted; the edit changes nothing here.
    await expectChange({}, async () => expectSuccess(await as(t, admin).put(`/api/admin/users/${id}`, { status: 'INACTIVE' })))
    await expectChange({ '2026-05-20': -1 }, async () => expectSuccess(await as(t, admin).delete(`/api/admin/users/${id}`)))
  })

  it('counts by UTC day to the microsecond, whatever the time zone of the session that writes', async () => {
    const ids: string[] = []
    await expectChange({ '2026-05-29': 1, '2026-05-30': 2, '2026-05-31': 1 }, () =>
      t.ctx.db.connection().execute(async (conn) => {
        try {
          // Already 2026-05-30 in Kiritimati (UTC+14) at 10:00 UTC on the 29th; still the 30th in Los Angeles at 00:00 UTC on the 31st.
          await sql`SET TIME ZONE 'Pacific/Kiritimati'`.execute(conn)
          ids.push(...(await insertAt(conn, ['2026-05-29 23:59:59.999999+00', '2026-05-30 00:00:00+00', '2026-05-30 23:59:59.999999+00'])))
          await sql`SET TIME ZONE 'America/Los_Angeles'`.execute(conn)
          ids.push(...(await insertAt(conn, ['2026-05-31 00:00:00+00'])))
        } finally {
          await sql`RESET TIME ZONE`.execute(conn)
        }
      }),
    )
    // Several accounts of several days deleted in one statement.
    await expectChange({ '2026-05-29': -1, '2026-05-30': -2, '2026-05-31': -1 }, () => t.ctx.db.deleteFrom('users').where('id', 'in', ids).execute())
  })

  it('stays exact under many accounts written and removed at once (parallel transactions on PostgreSQL)', async () => {
    const times = ['2026-05-25 23:59:59+00', '2026-05-26 00:00:00+00', '2026-05-26 12:00:00+00']
    const ids: string[] = []
    await expectChange({ '2026-05-25': 20, '2026-05-26': 40 }, async () => {
      for (const made of await Promise.all(Array.from({ length: 20 }, () => insertAt(t.ctx.db, times)))) ids.push(...made)
    })
    await expectChange({ '2026-05-25': -20, '2026-05-26': -40 }, () =>
      Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          t.ctx.db
            .deleteFrom('users')
            .where('id', 'in', ids.slice(index * 3, index * 3 + 3))
            .execute(),
        ),
      ),
    )
  })

  it('moves an account whose creation time is changed to another day, and only then', async () => {
    const [id] = await insertAt(t.ctx.db, ['2026-05-10 12:00:00+00'])
    const setCreated = (at: string) => sql`UPDATE users SET created_at = ${at}::timestamptz WHERE id = ${id}`.execute(t.ctx.db)
    await expectChange({ '2026-05-10': -1, '2026-05-11': 1 }, () => setCreated('2026-05-11 00:00:00+00'))
    await expectChange({}, () => setCreated('2026-05-11 23:59:59.999999+00'))
    await expectChange({}, () => t.ctx.db.updateTable('users').set({ name: 'Renamed Person', status: 'SUSPENDED' }).where('id', '=', id!).execute())
    await expectChange({ '2026-05-11': -1 }, () => t.ctx.db.deleteFrom('users').where('id', '=', id!).execute())
  })

  it("gives the dashboard each day's count of the users table, the oldest day and today included, the days either side left out", async () => {
    // Today is 2026-06-01 (the test clock): the 30 days are 2026-05-03 to 2026-06-01.
    expect(today()).toBe('2026-06-01')
    await insertAt(t.ctx.db, [
      '2026-05-02 23:59:59.999999+00',
      '2026-05-03 00:00:00+00',
      '2026-05-03 00:00:00.000001+00',
      '2026-05-17 12:00:00+00',
      '2026-06-01 23:59:59.999999+00',
      '2026-06-02 00:00:00+00',
    ])
    const { signUps } = expectSuccess(await as(t, admin).get('/api/admin/stats')).data as { signUps: { date: string; count: number }[] }
    const days = Array.from({ length: 30 }, (_, index) => new Date(Date.UTC(2026, 4, 3 + index)).toISOString().slice(0, 10))
    const table = await counted(t.ctx.db)
    expect(signUps).toEqual(days.map((date) => ({ date, count: table[date] ?? 0 })))
    expect(signUps[0]).toEqual({ date: '2026-05-03', count: 2 })
    expect(signUps.find((day) => day.date === '2026-05-17')).toEqual({ date: '2026-05-17', count: 1 })
    expect(signUps.find((day) => day.date === '2026-05-20')).toEqual({ date: '2026-05-20', count: 0 })
    expect(signUps[29]!.date).toBe('2026-06-01')
    expect(signUps[29]!.count).toBe(table['2026-06-01'])
  })

  it('moves its 30 days with the clock: tomorrow, the account made at its first instant counts', async () => {
    t.clock.advance(24 * 60 * 60)
    admin = await quickSignIn(t, { role: 'ADMIN' })
    const { signUps } = expectSuccess(await as(t, admin).get('/api/admin/stats')).data as { signUps: { date: string; count: number }[] }
    expect(signUps.map((day) => day.date)).toEqual(Array.from({ length: 30 }, (_, index) => new Date(Date.UTC(2026, 4, 4 + index)).toISOString().slice(0, 10)))
    const table = await counted(t.ctx.db)
    expect(signUps.map((day) => day.count)).toEqual(signUps.map((day) => table[day.date] ?? 0))
    // The account made at 00:00 on 2026-06-02 and the admin signed in just now.
    expect(signUps[29]).toEqual({ date: '2026-06-02', count: 2 })
  })
})

describe('the sign-ups counter after `npm run db:seed`', () => {
  let handle: DatabaseHandle
  beforeAll(async () => {
    handle = await openTestDatabase()
  })
  afterAll(() => handle?.close())

  it('is counted afresh after the bulk load (which runs without triggers), and again when a second run adds accounts', async () => {
    const log = () => {}
    await seedDatabase(handle.db, { users: 300, activities: 200, log })
    const first = await counter(handle.db)
    expect(first).toEqual(await counted(handle.db))
    expect(Object.values(first).reduce((sum, n) => sum + n, 0)).toBe(300)
    // Two years of accounts: spread over many days.
    expect(Object.keys(first).length).toBeGreaterThan(100)

    await seedDatabase(handle.db, { users: 400, activities: 200, log })
    const second = await counter(handle.db)
    expect(second).toEqual(await counted(handle.db))
    expect(Object.values(second).reduce((sum, n) => sum + n, 0)).toBe(400)

    // The triggers are on again after the load: a new account counts.
    const [id] = await insertAt(handle.db, ['2026-01-15 09:30:00+00'])
    expect(await counter(handle.db)).toEqual(plus(second, { '2026-01-15': 1 }))
    await handle.db.deleteFrom('users').where('id', '=', id!).execute()
    expect(await counter(handle.db)).toEqual(second)
  })
})
