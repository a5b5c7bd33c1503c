import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { preparingPool, READ_TIMEOUT_MESSAGE } from '~server/db/prepared'

/**
 * What keeps a request's objects short-lived, so that young-generation collections free them
 * (decision 0407): the database pool's own read timeout (no timer per query) and one wrapper per
 * pooled connection. The engine's part is in tests/api/oidc/engine-patches.test.ts (decision 0408).
 */

/** A node-postgres pool stand-in whose one client answers only when told to. */
function fakePool() {
  const calls: { config: { text: string }; answer(error?: Error): void }[] = []
  const released: (Error | undefined)[] = []
  const client = {
    query(config: { text: string }, callback: (error: Error | undefined, result?: unknown) => void) {
      calls.push({ config, answer: (error) => callback(error, error ? undefined : { rows: [{ ok: 1 }], command: 'SELECT', rowCount: 1 }) })
    },
    release(error?: Error) {
      released.push(error)
    },
  }
  let ended = false
  const pool = {
    connect: async () => client,
    end: async () => {
      ended = true
    },
  }
  return { pool: pool as unknown as pg.Pool, calls, released, ended: () => ended }
}

describe('the pool Kysely is given', () => {
  it('hands out one wrapper per pooled connection, for its whole life', async () => {
    const { pool } = fakePool()
    const wrapped = preparingPool(pool)
    const first = await wrapped.connect()
    first.release()
    const second = await wrapped.connect()
    expect(second).toBe(first)
    await wrapped.end()
  })

  it('answers a query through the callback form', async () => {
    const { pool, calls, released } = fakePool()
    const wrapped = preparingPool(pool, 60_000)
    const client = await wrapped.connect()
    const answer = client.query('SELECT 1 AS ok', [])
    calls[0]!.answer()
    await expect(answer).resolves.toMatchObject({ rows: [{ ok: 1 }] })
    await expect(
      (async () => {
        const failing = client.query('SELECT broken', [])
        calls[1]!.answer(new Error('syntax error'))
        return failing
      })(),
    ).rejects.toThrow('syntax error')
    client.release()
    expect(released).toEqual([undefined])
    await wrapped.end()
  })

  it('fails a query with no answer by its read timeout and closes its connection when released', async () => {
    const { pool, calls, released } = fakePool()
    const wrapped = preparingPool(pool, 40)
    const client = await wrapped.connect()
    const stuck = client.query('SELECT pg_sleep(3600)', [])
    await expect(stuck).rejects.toThrow(READ_TIMEOUT_MESSAGE)
    // A late answer changes nothing.
    calls[0]!.answer()
    client.release()
    expect(released).toHaveLength(1)
    expect(released[0]?.message).toBe(READ_TIMEOUT_MESSAGE)

    // The next checkout of a healthy connection is released normally.
    const again = await wrapped.connect()
    const quick = again.query('SELECT 1 AS ok', [])
    calls[1]!.answer()
    await expect(quick).resolves.toMatchObject({ rows: [{ ok: 1 }] })
    again.release()
    expect(released[1]).toBeUndefined()
    await wrapped.end()
  })

  it.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL, a query past the read timeout fails and its connection is closed', async () => {
    const raw = new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1 })
    const wrapped = preparingPool(raw, 300)
    try {
      const client = await wrapped.connect()
      await expect(client.query('SELECT pg_sleep(5)', [])).rejects.toThrow(READ_TIMEOUT_MESSAGE)
      client.release()
      expect(raw.totalCount).toBe(0)
      const next = await wrapped.connect()
      await expect(next.query('SELECT 1 AS ok', [])).resolves.toMatchObject({ rows: [{ ok: 1 }] })
      next.release()
    } finally {
      await wrapped.end()
    }
  })
})
