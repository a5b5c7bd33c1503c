import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { type Kysely, Migrator, NO_MIGRATIONS, sql } from 'kysely'
import pg from 'pg'
import { loadConfig } from '~server/config/env'
import { parseSecret } from '~server/config/secrets'
import { DataDirLockedError, lockDataDir } from '~server/db/data-dir-lock'
import { describeDatabaseUrl, openDatabase, openEmbeddedDatabase, unusableDatabase } from '~server/db/database'
import { migrateToLatest, migrationProvider } from '~server/db/migrate'
import { copyDatabase } from '~server/db/copy/copy-tables'

/**
 * `npm run db:copy -- --to postgres://…`: moves everything from the embedded database under
 * DATA_DIR to an empty PostgreSQL database, then says what to set to run on it (README,
 * "Outgrowing one machine"; docs/decisions/0021).
 *
 * Refused, with nothing changed anywhere: while a server holds DATA_DIR, when there is no
 * embedded database, when the target cannot be reached, and when it already has tables. The
 * target is migrated, filled in one transaction and verified table by table; should anything fail
 * after the migration, the migration is undone, so the target is left as empty as it was found.
 */
const usage = 'Usage: npm run db:copy -- --to postgres://user:password@host:5432/database'

class Refusal extends Error {}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { to: { type: 'string' }, help: { type: 'boolean' } } })
  if (values.help) return console.log(usage)
  const to = values.to
  if (!to || !/^postgres(ql)?:\/\//.test(to)) throw new Refusal(`Give the target database as --to postgres://…\n${usage}`)
  const config = loadConfig()
  const secret = authSecret(config.authSecret, config.dataDir)

  const lock = await lockDataDir(config.dataDir).catch((error: unknown) => {
    if (!(error instanceof DataDirLockedError)) throw error
    throw new Refusal(`${error.message.replace(/ Stop it first.*$/, '')} Stop the server first: db:copy needs the embedded database to itself. Nothing was changed.`)
  })
  try {
    const pgdata = path.join(config.dataDir, 'pgdata')
    if (!fs.existsSync(path.join(pgdata, 'PG_VERSION'))) throw new Refusal(`There is no embedded database in ${pgdata} (DATA_DIR=${config.dataDir}).`)
    await assertEmptyTarget(to)

    const lite = await openEmbeddedDatabase(pgdata)
    const source = await openDatabase({ pglite: lite })
    const target = await openDatabase({ url: to, poolSize: 1 })
    try {
      // The embedded database is brought up to this version first, as `npm start` would.
      await migrateToLatest(source.db)
      console.log(`Copying ${pgdata} to ${describeDatabaseUrl(to)}...`)
      const client = new pg.Client({ connectionString: to, application_name: 'accounts db:copy' })
      let copied
      try {
        await migrateToLatest(target.db)
        await client.connect()
        copied = await copyDatabase(lite, client, (table, rows) => console.log(`  ${table}: ${rows} rows`))
      } catch (error) {
        await undoMigrations(target.db).catch((undo: unknown) => console.error(`Could not undo the target's migration: ${(undo as Error).message}`))
        throw error
      } finally {
        await client.end()
      }
      const rows = copied.reduce((sum, table) => sum + table.rows, 0)
      console.log(
        [
          '',
          `Copied ${copied.length} tables and ${rows} rows (profile pictures included); every table's row count and contents verified.`,
          '',
          'Run the server on PostgreSQL with these settings (keep AUTH_SECRET secret: it signs sessions and',
          'decrypts what was encrypted with it, such as queued e-mail and two-factor secrets):',
          '',
          `  DATABASE_URL=${to}`,
          `  AUTH_SECRET=${secret}`,
          '',
          `The embedded database in ${pgdata} is unchanged; keep it until the server runs well on PostgreSQL.`,
          '',
        ].join('\n'),
      )
    } finally {
      await target.close()
      await source.close()
      await lite.close()
    }
  } finally {
    await lock.release()
  }
}

/** The secret the embedded server signed and encrypted with: AUTH_SECRET, else the one generated under DATA_DIR. */
function authSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured
  const file = path.join(dataDir, 'secrets', 'auth-secret')
  if (!fs.existsSync(file)) throw new Refusal(`No AUTH_SECRET is set and ${file} does not exist: is DATA_DIR (${dataDir}) the server's data directory?`)
  const secret = fs.readFileSync(file, 'utf8').trim()
  parseSecret(secret)
  return secret
}

async function assertEmptyTarget(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, application_name: 'accounts db:copy' })
  try {
    await client.connect()
  } catch (error) {
    throw new Refusal(`${unusableDatabase(error, url, '--to').message} Nothing was changed.`)
  }
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT n.nspname || '.' || c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
         AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'
       ORDER BY 1 LIMIT 6`,
    )
    if (rows.length > 0) {
      const names =
        rows
          .slice(0, 5)
          .map((r) => r.name)
          .join(', ') + (rows.length > 5 ? ', …' : '')
      throw new Refusal(
        `The target database ${describeDatabaseUrl(url)} is not empty (it has ${names}). Give db:copy a new, empty database (CREATE DATABASE …). Nothing was changed.`,
      )
    }
  } finally {
    await client.end()
  }
}

/** Every migration undone and the migrator's tables dropped: the target as empty as it was found. */
async function undoMigrations<DB>(db: Kysely<DB>): Promise<void> {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(NO_MIGRATIONS)
  if (error) throw error
  await sql`DROP TABLE IF EXISTS kysely_migration, kysely_migration_lock`.execute(db)
}

main().catch((error: unknown) => {
  if (error instanceof Refusal) {
    console.error(`\ndb:copy: ${error.message}\n`)
    process.exit(error.message.startsWith('Give the target') ? 2 : 1)
  }
  console.error(`\ndb:copy failed: ${error instanceof Error ? error.message : String(error)}\nThe target database was left as it was found.\n`)
  process.exit(1)
})
