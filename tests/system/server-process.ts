import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll } from 'vitest'
import { preparedDataDir } from '../support/global-data-dir'
import { createPostgresDatabase as createDatabase, killStrayServers, type ServerProcess } from '../support/server-process'
import { PGLITE_EXTENSIONS } from '~server/db/database'

/** What the whole-process tests share, beside the server process itself (tests/support/server-process.ts). */

export {
  type CommandRun,
  freePort,
  killStrayServers,
  runCommand,
  said,
  type ServerProcess,
  spawnServer,
  startOutcome,
  startServer,
  stopServer,
  withoutSettings,
  withTimeout,
} from '../support/server-process'

/**
 * The database a whole-process test of the stored data runs on, as every suite does: the embedded
 * one, or the PostgreSQL server of TEST_DATABASE_URL when it is set (`.ci/run` runs the suite once
 * each way). The tests of what only the embedded database has (its data-directory lock, its first
 * start, `db:copy`) run on it either way.
 */
export const STORES = [
  process.env.TEST_DATABASE_URL
    ? { store: 'PostgreSQL', postgresUrl: process.env.TEST_DATABASE_URL as string | undefined }
    : { store: 'the embedded database (PGlite)', postgresUrl: undefined as string | undefined },
]

/**
 * A data folder whose embedded database is already created and migrated (a copy of the run's
 * template, tests/support/global-data-dir.ts): the server skips initdb, about 5 s of its 9 s
 * first start on a two-core machine. For a server whose database is the PostgreSQL server at
 * `postgresUrl`, an empty folder: it keeps only its uploads there, and the copy would be 40 MB
 * written for nothing.
 */
export function tempDataDir(postgresUrl?: string): string {
  return postgresUrl ? emptyDataDir() : preparedDataDir('accounts-system-')
}

/** An empty data folder, for tests of the first start itself (the server creates its database). */
export function emptyDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-system-'))
}

/**
 * Data folders for the test file (or describe block) that calls it: each call of the function it
 * gives makes one, empty (a first start) or prepared (`tempDataDir`); once the file is done, any
 * server left running is stopped and every folder removed.
 */
export function dataFolders(): (kind?: 'empty' | 'prepared') => string {
  const dirs: string[] = []
  afterAll(async () => {
    await killStrayServers()
    for (const dir of dirs.splice(0)) removeDataDir(dir)
  })
  return (kind = 'empty') => {
    const dir = kind === 'prepared' ? tempDataDir() : emptyDataDir()
    dirs.push(dir)
    return dir
  }
}

/** Removes a data directory (retrying while a dying process lets go of it). */
export function removeDataDir(dataDir: string): void {
  fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
}

/** A fresh database on the PostgreSQL server of TEST_DATABASE_URL, dropped by `drop()`. */
export const createPostgresDatabase = (serverUrl: string) => createDatabase(serverUrl, 'accounts_system')

export interface JsonAnswer {
  status: number
  body: any
  headers: Headers
}

export async function call(server: ServerProcess, method: string, url: string, body?: unknown, token?: string): Promise<JsonAnswer> {
  const response = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body: parsed, headers: response.headers }
}

/**
 * The first administrator's credentials, as the first start gave them: printed on a terminal, or,
 * in a log (JSON, or readable but not on a terminal, as every test's start is), in the file the log
 * names.
 */
export function printedAdmin(output: string): { email: string; password: string } | null {
  const text = passwordFileOf(output) ? fs.readFileSync(passwordFileOf(output)!, 'utf8') : output
  const email = text.match(/^\s*email:\s+(\S+)$/m)?.[1]
  const password = text.match(/^\s*password:\s+(\S+)$/m)?.[1]
  return email && password ? { email, password } : null
}

/** The file that holds the first administrator's generated password, as the start's log names it. */
export function passwordFileOf(output: string): string | undefined {
  for (const line of output.split('\n')) {
    if (line.startsWith('{')) {
      const file = (JSON.parse(line) as { passwordFile?: string }).passwordFile
      if (file) return file
    } else {
      const file = /^First administrator created: \S+\. Its password is in (\/.+), which only this user may read/.exec(line)?.[1]
      if (file) return file
    }
  }
  return undefined
}

/**
 * Reads tables straight from the database the server used (with the server stopped, for the
 * embedded one): what is really stored, not what an API chooses to show.
 */
export async function queryStore<T>(store: { dataDir: string; databaseUrl?: string }, sql: string): Promise<T[]> {
  if (store.databaseUrl) {
    const client = new pg.Client({ connectionString: store.databaseUrl })
    await client.connect()
    try {
      return (await client.query(sql)).rows as T[]
    } finally {
      await client.end()
    }
  }
  const lite = await PGlite.create(path.join(store.dataDir, 'pgdata'), { extensions: PGLITE_EXTENSIONS })
  try {
    return (await lite.query<T>(sql)).rows
  } finally {
    await lite.close()
  }
}
