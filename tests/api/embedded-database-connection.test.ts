import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { DatabaseError } from 'pg-protocol'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { pglitePoolConfig } from '~server/db/pglite-connection'

/**
 * node-postgres's connection to the embedded database (src/server/db/pglite-connection.ts,
 * decision 0024): what PGlite answers must reach node-postgres whole and in order, each statement's
 * messages in one call, errors as node-postgres's own.
 */
let lite: PGlite
let pool: pg.Pool

beforeAll(async () => {
  lite = await PGlite.create('memory://')
  pool = new pg.Pool(pglitePoolConfig(lite))
  await pool.query(`CREATE TABLE things (id int PRIMARY KEY, name text NOT NULL, data jsonb, seen timestamptz, raw bytea)`)
})

afterAll(async () => {
  await pool?.end()
  await lite?.close()
})

describe('the embedded database through node-postgres', () => {
  it('gives back rows, values and types as PGlite holds them, for named and unnamed statements', async () => {
    await pool.query('INSERT INTO things VALUES ($1, $2, $3, $4, $5), ($6, $7, NULL, NULL, NULL)', [
      1,
      'één',
      { nested: [1, 'two'] },
      new Date('2026-11-29T10:00:00.123Z'),
      Buffer.from([0, 255, 7]),
      2,
      'second',
    ])
    const named = { name: 'things_by_id', text: 'SELECT id, name, data, seen, raw FROM things WHERE id = $1' }
    for (let run = 0; run < 3; run++) {
      const { rows, fields } = await pool.query({ ...named, values: [1] })
      expect(rows).toEqual([{ id: 1, name: 'één', data: { nested: [1, 'two'] }, seen: new Date('2026-11-29T10:00:00.123Z'), raw: Buffer.from([0, 255, 7]) }])
      expect(fields.map((field) => field.name)).toEqual(['id', 'name', 'data', 'seen', 'raw'])
    }
    const { rows } = await pool.query({ ...named, values: [2] })
    expect(rows).toEqual([{ id: 2, name: 'second', data: null, seen: null, raw: null }])
    const direct = await lite.query<{ id: number; name: string }>('SELECT id, name FROM things ORDER BY id')
    expect((await pool.query('SELECT id, name FROM things ORDER BY id')).rows).toEqual(direct.rows)
  })

  it("sends a statement's messages to PGlite in one call", async () => {
    const calls = vi.spyOn(lite, 'execProtocolRawStream')
    try {
      const named = { name: 'things_count', text: 'SELECT count(*)::int AS n FROM things WHERE id > $1' }
      await pool.query({ ...named, values: [0] }) // parse, bind, describe, execute, sync
      await pool.query({ ...named, values: [1] }) // bind, describe, execute, sync
      await pool.query('SELECT 1') // a simple query
      expect(calls).toHaveBeenCalledTimes(3)
    } finally {
      calls.mockRestore()
    }
  })

  it('reads an answer PGlite hands over in many pieces, each copied before PGlite reuses its memory', async () => {
    const { rows } = await pool.query<{ i: number; text: string }>(`SELECT i, md5(i::text) AS text FROM generate_series(1, 50000) AS i`)
    expect(rows).toHaveLength(50_000)
    const { rows: expected } = await lite.query<{ total: string }>(`SELECT string_agg(md5(i::text), '' ORDER BY i) AS total FROM generate_series(1, 50000) AS i`)
    expect(rows.map((row) => row.text).join('')).toBe(expected[0]!.total)
    expect(rows.at(-1)).toEqual({ i: 50_000, text: expect.any(String) })
  })

  it("refuses a bad statement with node-postgres's own error and goes on serving", async () => {
    const duplicate = pool.query('INSERT INTO things (id, name) VALUES (1, $1)', ['again'])
    await expect(duplicate).rejects.toBeInstanceOf(DatabaseError)
    await expect(duplicate).rejects.toMatchObject({ code: '23505', constraint: 'things_pkey' })
    await expect(pool.query({ name: 'broken', text: 'SELECT nothing FROM nowhere' })).rejects.toMatchObject({ code: '42P01' })
    // A wrong number of values is refused by the database, the statement's other messages with it.
    await expect(pool.query({ name: 'things_by_id', text: 'SELECT id, name, data, seen, raw FROM things WHERE id = $1', values: [] })).rejects.toThrow()
    expect((await pool.query('SELECT count(*)::int AS n FROM things')).rows).toEqual([{ n: 2 }])
  })

  it('keeps a transaction whole: a failure inside it rolls back what it wrote', async () => {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      await client.query('INSERT INTO things (id, name) VALUES (3, $1)', ['third'])
      await expect(client.query('INSERT INTO things (id, name) VALUES (3, $1)', ['again'])).rejects.toMatchObject({ code: '23505' })
      await expect(client.query('SELECT 1')).rejects.toMatchObject({ code: '25P02' })
      await client.query('ROLLBACK')
    } finally {
      client.release()
    }
    expect((await pool.query('SELECT count(*)::int AS n FROM things WHERE id = 3')).rows).toEqual([{ n: 0 }])
  })

  it('answers statements sent together in the order they were sent', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.query({ name: 'echo', text: 'SELECT $1::int AS i', values: [i] })))
    expect(answers.map((answer) => answer.rows[0].i)).toEqual(Array.from({ length: 40 }, (_, i) => i))
  })

  it('keeps a named statement when the pool replaces its client, as PGlite keeps it', async () => {
    const named = { name: 'things_names', text: 'SELECT name FROM things ORDER BY id' }
    const first = await pool.connect()
    expect((await first.query(named)).rows).toEqual([{ name: 'één' }, { name: 'second' }])
    first.release(true) // the pool closes this client
    const second = await pool.connect()
    try {
      expect(second).not.toBe(first)
      expect((await second.query(named)).rows).toEqual([{ name: 'één' }, { name: 'second' }])
    } finally {
      second.release()
    }
  })
})
