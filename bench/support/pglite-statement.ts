/**
 * Development aid (`npx tsx bench/support/pglite-statement.ts`): what one named statement costs on
 * the embedded database through node-postgres, with PGlite's own adapter
 * (`@electric-sql/pglite/node-postgres`) and with the product's connection
 * (src/server/db/pglite-connection.ts, decision 0024), taking turns. The statement reads one row of
 * 33 columns by key with a join, as UserInfo's read does. Prints the wall and CPU time per statement.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { createPgConfig } from '@electric-sql/pglite/node-postgres'
import pg from 'pg'
import { pglitePoolConfig } from '../../src/server/db/pglite-connection'

const STATEMENTS = Number(process.env.STATEMENTS ?? 10_000)
const ROUNDS = Number(process.env.ROUNDS ?? 3)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-statement-'))
const lite = await PGlite.create(path.join(dir, 'pgdata'))
try {
  const columns = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i} text DEFAULT md5(random()::text)`).join(', ')
  await lite.exec(`
    CREATE TABLE accounts (id int PRIMARY KEY, ${columns('a', 15)}, created_at timestamptz DEFAULT now());
    CREATE TABLE tokens (id int PRIMARY KEY, account_id int NOT NULL REFERENCES accounts, payload jsonb NOT NULL, ${columns('t', 14)}, expires_at timestamptz DEFAULT now());
    INSERT INTO accounts (id) SELECT i FROM generate_series(0, 999) AS i;
    INSERT INTO tokens (id, account_id, payload) SELECT i, i, jsonb_build_object('scope', 'openid profile email', 'n', i) FROM generate_series(0, 999) AS i;
    ANALYZE;`)
  const pools = {
    "PGlite's adapter": new pg.Pool(createPgConfig(lite)),
    "the product's connection": new pg.Pool(pglitePoolConfig(lite)),
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, pool] of Object.entries(pools)) {
      // Each pool is its own client of the one database: its statement needs a name of its own.
      const statement = { name: `read_${label.length}`, text: 'SELECT * FROM tokens AS t JOIN accounts AS a ON a.id = t.account_id WHERE t.id = $1' }
      const client = await pool.connect()
      try {
        for (let i = 0; i < 1_000; i++) await client.query({ ...statement, values: [i % 1_000] })
        const cpu = process.cpuUsage()
        const started = performance.now()
        for (let i = 0; i < STATEMENTS; i++) await client.query({ ...statement, values: [i % 1_000] })
        const wall = performance.now() - started
        const used = process.cpuUsage(cpu)
        console.log(`${label.padEnd(26)} ${((wall * 1000) / STATEMENTS).toFixed(1)} µs a statement, ${((used.user + used.system) / STATEMENTS).toFixed(1)} µs of CPU`)
      } finally {
        client.release()
      }
    }
  }
  await Promise.all(Object.values(pools).map((pool) => pool.end()))
} finally {
  await lite.close()
  fs.rmSync(dir, { recursive: true, force: true })
}
