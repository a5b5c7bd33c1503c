import crypto from 'node:crypto'
import fs from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { inject } from 'vitest'
import { type DatabaseHandle, openDatabase, PGLITE_EXTENSIONS } from '~server/db/database'
import { withDatabase } from './global-database'

/** The engine the tests run on: PostgreSQL when TEST_DATABASE_URL is set, else PGlite. */
export const onPostgres = Boolean(process.env.TEST_DATABASE_URL)

/**
 * A fresh, migrated database of its own for one test file (or one test). Dropped on close.
 * `poolSize` sets the PostgreSQL pool's connections (PGlite has one).
 */
export async function openTestDatabase(options: { poolSize?: number } = {}): Promise<DatabaseHandle> {
  const url = process.env.TEST_DATABASE_URL
  if (url) {
    const name = `accounts_test_${crypto.randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('postgresTemplate')}`)
    } finally {
      await admin.end()
    }
    const handle = await openDatabase({ url: withDatabase(url, name), poolSize: options.poolSize ?? 10 })
    return {
      ...handle,
      async close() {
        await handle.close()
        const dropper = new pg.Client({ connectionString: url })
        await dropper.connect()
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        await dropper.end()
      },
    }
  }
  const snapshot = fs.readFileSync(inject('pgliteSnapshot'))
  const lite = await PGlite.create('memory://', { extensions: PGLITE_EXTENSIONS, loadDataDir: new Blob([snapshot]) })
  const handle = await openDatabase({ pglite: lite })
  return {
    ...handle,
    async close() {
      await handle.close()
      await lite.close()
    },
  }
}

/** A fresh database with no schema at all, for tests of what a migration does to older data. Dropped on close. */
export async function openEmptyTestDatabase(): Promise<DatabaseHandle> {
  const url = process.env.TEST_DATABASE_URL
  if (url) {
    const name = `accounts_test_${crypto.randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await admin.query(`CREATE DATABASE ${name}`)
    } finally {
      await admin.end()
    }
    const handle = await openDatabase({ url: withDatabase(url, name), poolSize: 2 })
    return {
      ...handle,
      async close() {
        await handle.close()
        const dropper = new pg.Client({ connectionString: url })
        await dropper.connect()
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        await dropper.end()
      },
    }
  }
  const lite = await PGlite.create('memory://', { extensions: PGLITE_EXTENSIONS })
  const handle = await openDatabase({ pglite: lite })
  return {
    ...handle,
    async close() {
      await handle.close()
      await lite.close()
    },
  }
}
