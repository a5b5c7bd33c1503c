import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '~server/db/database'
import { migrateToLatest, migrateUpTo } from '~server/db/migrate'
import { openEmptyTestDatabase } from '../../support/test-database'

/**
 * Migration 0017 on a database with accounts made before it: `sign_ups_by_day` starts with every
 * existing account on its UTC day, its triggers keep it from then on, and its `down` removes the
 * table, the functions and the triggers, leaving the accounts as they were.
 */

let handle: DatabaseHandle
const BEFORE = 'Before 0017'

// Times around UTC midnights, written by a session whose time zone is not UTC.
const CREATED = [
  '2025-12-31 23:59:59.999999+00',
  '2026-01-01 00:00:00+00',
  '2026-01-01 13:00:00+00',
  '2026-01-01 23:59:59.999999+00',
  '2026-01-02 00:00:00+00',
  '2026-03-15 09:00:00+00',
]
const EXPECTED = { '2025-12-31': 1, '2026-01-01': 3, '2026-01-02': 1, '2026-03-15': 1 }

async function insertAt(times: string[], name: string) {
  await sql`
    INSERT INTO users (name, email, password_hash, role, status, email_verified_at, created_at, updated_at)
    SELECT ${name}, 'person' || ordinality || '-' || md5(${name}) || '@example.com', 'not-a-hash', 'CLIENT', 'ACTIVE', at, at, at
    FROM unnest(${times}::timestamptz[]) WITH ORDINALITY AS times (at, ordinality)`.execute(handle.db)
}

async function counter(): Promise<Record<string, number>> {
  const { rows } = await sql<{ day: string; n: string }>`
    SELECT day::text AS day, sum(n) AS n FROM sign_ups_by_day GROUP BY day HAVING sum(n) <> 0 ORDER BY day`.execute(handle.db)
  return Object.fromEntries(rows.map((row) => [row.day, Number(row.n)]))
}

async function objects() {
  const { rows } = await sql<{ kind: string; name: string }>`
    SELECT 'table' AS kind, relname AS name FROM pg_class WHERE relname = 'sign_ups_by_day'
    UNION ALL SELECT 'function', proname FROM pg_proc WHERE proname LIKE 'sign\\_ups\\_by\\_day\\_%'
    UNION ALL SELECT 'trigger', tgname FROM pg_trigger WHERE tgname LIKE 'users\\_sign\\_ups\\_%'
    ORDER BY 1, 2`.execute(handle.db)
  return rows
}

beforeAll(async () => {
  handle = await openEmptyTestDatabase()
  await migrateUpTo(handle.db, '0016_activity_search_by_week')
  await handle.db.connection().execute(async (conn) => {
    await sql`SET TIME ZONE 'Asia/Tokyo'`.execute(conn)
    try {
      await sql`
        INSERT INTO users (name, email, password_hash, role, status, email_verified_at, created_at, updated_at)
        SELECT ${BEFORE}, 'before' || ordinality || '@example.com', 'not-a-hash', 'CLIENT', 'ACTIVE', at, at, at
        FROM unnest(${CREATED}::timestamptz[]) WITH ORDINALITY AS times (at, ordinality)`.execute(conn)
    } finally {
      await sql`RESET TIME ZONE`.execute(conn)
    }
  })
  await migrateToLatest(handle.db)
})
afterAll(() => handle?.close())

describe('migration 0017 on accounts made before it', () => {
  it('counts every existing account on its UTC day', async () => {
    expect(await counter()).toEqual(EXPECTED)
  })

  it('keeps the count from then on, through inserts and deletes', async () => {
    await insertAt(['2026-01-01 06:00:00+00', '2026-04-01 00:00:00+00'], 'After 0017')
    expect(await counter()).toEqual({ ...EXPECTED, '2026-01-01': 4, '2026-04-01': 1 })
    await handle.db.deleteFrom('users').where('name', '=', 'After 0017').execute()
    expect(await counter()).toEqual(EXPECTED)
  })

  it('is undone by its down: table, functions and triggers gone, the accounts untouched, and it can be done again', async () => {
    expect(await objects()).toEqual([
      { kind: 'function', name: 'sign_ups_by_day_apply' },
      { kind: 'function', name: 'sign_ups_by_day_move' },
      { kind: 'table', name: 'sign_ups_by_day' },
      { kind: 'trigger', name: 'users_sign_ups_delete' },
      { kind: 'trigger', name: 'users_sign_ups_insert' },
      { kind: 'trigger', name: 'users_sign_ups_move' },
    ])
    await migrateUpTo(handle.db, '0016_activity_search_by_week')
    expect(await objects()).toEqual([])
    // Accounts are still written and removed without the counter.
    await insertAt(['2026-05-05 05:05:00+00'], 'Between')
    expect(await handle.db.selectFrom('users').select('name').where('name', 'in', [BEFORE, 'Between']).execute()).toHaveLength(CREATED.length + 1)

    await migrateToLatest(handle.db)
    expect(await counter()).toEqual({ ...EXPECTED, '2026-05-05': 1 })
  })
})
