import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { openDatabase, PGLITE_EXTENSIONS } from '~server/db/database'
import { migrateToLatest } from '~server/db/migrate'

/**
 * Runs once per test run. Migrates a database once and hands its snapshot to every test file:
 * a PGlite data-directory dump by default, or a template database on the PostgreSQL server
 * named by TEST_DATABASE_URL. Each test file then gets its own copy, so files run in parallel.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string
    postgresTemplate: string
  }
}

export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL
  if (url) {
    const template = `accounts_template_${crypto.randomBytes(4).toString('hex')}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${template}`)
    const handle = await openDatabase({ url: withDatabase(url, template), poolSize: 1 })
    await migrateToLatest(handle.db)
    await handle.close()
    project.provide('postgresTemplate', template)
    project.provide('pgliteSnapshot', '')
    return async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
      await admin.end()
    }
  }
  const lite = await PGlite.create('memory://', { extensions: PGLITE_EXTENSIONS })
  const handle = await openDatabase({ pglite: lite })
  await migrateToLatest(handle.db)
  await handle.close()
  const dump = await lite.dumpDataDir('none')
  await lite.close()
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-snapshot-')), 'pgdata.tar')
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
  project.provide('pgliteSnapshot', file)
  project.provide('postgresTemplate', '')
  return () => fs.rmSync(path.dirname(file), { recursive: true, force: true })
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}
