import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { pglitePoolConfig } from './pglite-connection'
import { preparingPool, READ_TIMEOUT_MESSAGE } from './prepared'
import type { Database, DatabaseKind } from './types'
import { ExplainedError } from '~server/explained-error'

/** The PostgreSQL extensions the migrations create, as PGlite loads them: every PGlite opened on the product's data takes these. */
export const PGLITE_EXTENSIONS = { pg_trgm, btree_gin }

/**
 * The PostgreSQL major version inside the embedded database (PGlite). A data directory made by
 * another major version cannot be opened by it; tests/system/start-up-refusals.test.ts
 * checks this against what PGlite itself writes.
 */
export const EMBEDDED_POSTGRES_MAJOR = '18'

/** An embedded data directory this version cannot open, said in a sentence rather than a stack trace. */
export class EmbeddedDatabaseError extends ExplainedError {}

/**
 * Opens the embedded database in `pgdata` (created there on a first start). One made by another
 * PostgreSQL major version, as a PGlite release built on a new one would find after an upgrade,
 * is refused before PGlite touches it: PGlite itself only says that it "failed to initialize".
 */
export async function openEmbeddedDatabase(pgdata: string): Promise<PGlite> {
  const versionFile = path.join(pgdata, 'PG_VERSION')
  const made = fs.existsSync(versionFile) ? fs.readFileSync(versionFile, 'utf8').trim() : undefined
  if (made !== undefined && made !== EMBEDDED_POSTGRES_MAJOR) {
    throw new EmbeddedDatabaseError(
      `The embedded database in ${pgdata} was made by PostgreSQL ${made}; this version of Accounts embeds PostgreSQL ${EMBEDDED_POSTGRES_MAJOR} and cannot open it. ` +
        'Nothing was changed. With the version of Accounts that made it, move the data to a PostgreSQL server (`npm run db:copy -- --to postgres://…`, docs/deploying.md) and run this version on that server, or give this one another DATA_DIR.',
    )
  }
  return PGlite.create(pgdata, { extensions: PGLITE_EXTENSIONS })
}

export interface DatabaseHandle {
  db: Kysely<Database>
  kind: DatabaseKind
  /** The PostgreSQL connection pool, read by the metrics (PGlite has a single connection, no pool). */
  pool?: pg.Pool
  /** Closes the pool and, for PGlite, the database files: always call it on shutdown. */
  close(): Promise<void>
}

export type DatabaseOptions = { url: string; poolSize?: number; onPoolError?: (error: Error) => void } | { dataDir: string } | { pglite: PGlite }

/**
 * The same Kysely dialect serves both engines: node-postgres speaks to PGlite as to a PostgreSQL
 * server (./pglite-connection.ts), so queries, type parsing and errors behave alike on both.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if ('url' in options) return openPostgres(options.url, options.poolSize ?? 10, options.onPoolError)
  const owned = !('pglite' in options)
  let lite: PGlite
  if ('pglite' in options) {
    lite = options.pglite
  } else {
    fs.mkdirSync(options.dataDir, { recursive: true })
    lite = await openEmbeddedDatabase(path.join(options.dataDir, 'pgdata'))
  }
  const pool = new pg.Pool(pglitePoolConfig(lite))
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) })
  return {
    db,
    kind: 'pglite',
    async close() {
      await db.destroy()
      if (owned) await lite.close()
    },
  }
}

const READ_TIMEOUT_MS = 12_000

function openPostgres(url: string, max: number, onPoolError?: (error: Error) => void): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // A database that is down must produce a quick 503, not a request stuck waiting.
    connectionTimeoutMillis: 2_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 10_000,
    application_name: 'accounts',
  })
  // A connection dropped by the server (restart, failover, network) must not crash the process.
  // The pool listens on idle clients only; a client checked out at that moment emits 'error' too,
  // so every client gets a listener. The failed query answers 503; the pool discards the client.
  pool.on('error', (error) => onPoolError?.(error))
  pool.on('connect', (client) => client.on('error', (error) => onPoolError?.(error)))
  // A query with no answer in 12 s fails (the server's own limit is 10 s: this is for one that stopped answering).
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool, READ_TIMEOUT_MS) }) })
  return { db, kind: 'postgres', pool, close: () => db.destroy() }
}

/** The server a PostgreSQL URL names: `host:port` (the socket folder for a Unix socket). */
function serverOf(parsed: URL): string {
  return `${parsed.hostname || parsed.searchParams.get('host') || 'localhost'}:${parsed.port || 5432}`
}

/** Where a PostgreSQL URL leads, without its password: `host:port/database`. */
export function describeDatabaseUrl(url: string): string {
  const parsed = new URL(url)
  return serverOf(parsed) + parsed.pathname
}

/** A PostgreSQL database that cannot be used at start-up, said in a sentence an operator can act on. */
export class DatabaseStartError extends ExplainedError {}

/**
 * Why the database of `url` (given as the setting `setting`) could not be used, for the person
 * who set it: nobody answering, no such database, the user or password refused, or the server's
 * own words. Never the password.
 */
export function unusableDatabase(error: unknown, url: string, setting: string): DatabaseStartError {
  const parsed = new URL(url)
  const server = serverOf(parsed)
  const reason = error instanceof Error ? error.message || String((error as { code?: unknown }).code ?? error) : String(error)
  const code = (error as { code?: unknown } | null)?.code
  if (code === '3D000') {
    const name = decodeURIComponent(parsed.pathname.slice(1))
    return new DatabaseStartError(`The PostgreSQL server at ${server} has no database "${name}" (${setting}). Create it (createdb ${name}), or correct ${setting}.`)
  }
  if (code === '28P01' || code === '28000') {
    return new DatabaseStartError(`The PostgreSQL server at ${server} refused the user "${decodeURIComponent(parsed.username)}" (${setting}): ${reason}.`)
  }
  if (isDatabaseUnavailable(error) || /timeout|terminated/i.test(reason)) {
    return new DatabaseStartError(`No PostgreSQL server answers at ${server} (${setting}): ${reason}. Start it, or correct ${setting}.`)
  }
  return new DatabaseStartError(`The database ${server}${parsed.pathname} (${setting}) cannot be used: ${reason}.`)
}

/**
 * One round trip before a PostgreSQL database is used at all, so that a DATABASE_URL (or another
 * setting, named by `setting`) that cannot be used is said in a sentence (`unusableDatabase`).
 */
export async function probeDatabase(db: Kysely<Database>, url: string, setting: string): Promise<void> {
  await sql`SELECT 1`.execute(db).catch((error: unknown) => {
    throw unusableDatabase(error, url, setting)
  })
}

/** True for errors meaning the database cannot be reached right now (answered with 503). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true
    // 08: connection exceptions; 57P01-57P03: shutdown, crash, cannot connect now.
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true
  }
  if (error.message === READ_TIMEOUT_MESSAGE) return true
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(error.message)
}
