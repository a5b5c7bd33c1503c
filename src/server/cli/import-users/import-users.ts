import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { PGlite } from '@electric-sql/pglite'
import { type Kysely, sql } from 'kysely'
import { commitChange } from '~server/change'
import { type Config, loadConfig } from '~server/config/env'
import { setImportTransaction } from '~server/data/import-users/import-transaction'
import { DataDirLockedError, lockDataDir } from '~server/db/data-dir-lock'
import { openDatabase, PGLITE_EXTENSIONS, probeDatabase } from '~server/db/database'
import { migrateToLatest, migrationProvider } from '~server/db/migrate'
import type { Database } from '~server/db/types'
import { ExplainedError } from '~server/explained-error'
import { startRuntime } from '~server/runtime'
import { importAccounts } from '~server/use-cases/import-users/import-accounts'
import { importActivity } from '~server/use-cases/import-users/import-activity'
import { withSearchIndexesDeferred } from '~server/use-cases/import-users/search-indexes'
import { IMPORT_FORMATS, type ImportCounts, type ImportFormat, type ImportStore } from '~server/use-cases/import-users/records'
import { readCsvAccounts } from './formats/csv'
import { readKeycloakUsers } from './formats/keycloak'
import { readMernActivity, readMernUsers } from './formats/mern-ums'
import { ImportFileError } from './formats/reading'
import { ImportReport } from './report'

/**
 * `npm run users:import -- --file <path> --format mern-ums|keycloak|csv [--activity <path>] [--dry-run]`:
 * moves accounts in from another system with their passwords (contract section 14, docs/moving-in.md).
 * Uses the same configuration as `npm start`; on the embedded database the server must be stopped
 * (one process per data directory), and a data directory that was never started gets its database
 * first. Exit code 0 when every line was imported or skipped, 2 when some were refused (the rest
 * imported), 1 when the import could not run.
 */
const usage = [
  'Usage: npm run users:import -- --file <path> --format <format> [--activity <path>] [--dry-run] [--batch-size <n>]',
  '  --format mern-ums   the seed application: users.json from `mongoexport --collection users`',
  '                      (--activity activity_logs.json from `mongoexport --collection activity_logs` brings its activity log)',
  '  --format keycloak   a Keycloak realm export (kc.sh export --realm <realm> --file realm.json)',
  `  --format csv        a CSV file with a header: email,name,phone,role,status,emailVerified,passwordHash,createdAt (only email required)`,
  '  --dry-run           read and check everything, report what would happen, write nothing',
  '  --batch-size <n>    accounts per transaction (default 1000)',
].join('\n')

class UsageError extends ExplainedError {}

const DEFAULT_BATCH = 1000

interface Options {
  file: string
  format: ImportFormat
  activity: string | undefined
  dryRun: boolean
  batchSize: number
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      file: { type: 'string' },
      format: { type: 'string' },
      activity: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'batch-size': { type: 'string' },
      help: { type: 'boolean' },
    },
  })
  if (values.help) {
    console.log(usage)
    process.exit(0)
  }
  if (!values.file || !values.format) throw new UsageError(`give the file and its format.\n${usage}`)
  const format = values.format.toLowerCase() as ImportFormat
  if (!IMPORT_FORMATS.includes(format)) throw new UsageError(`unknown format "${values.format}": one of ${IMPORT_FORMATS.join(', ')}.\n${usage}`)
  if (values.activity && format !== 'mern-ums') throw new UsageError('--activity goes with --format mern-ums: only the seed application has an activity log to bring.')
  const batchSize = Number(values['batch-size'] ?? DEFAULT_BATCH)
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new UsageError('--batch-size takes a whole number from 1 to 10000.')
  for (const file of [values.file, values.activity]) if (file) readableFile(file)
  return { file: values.file, format, activity: values.activity, dryRun: values['dry-run'] === true, batchSize }
}

function readableFile(file: string): number {
  let stat: fs.Stats
  try {
    stat = fs.statSync(file)
    fs.accessSync(file, fs.constants.R_OK)
  } catch {
    throw new UsageError(`cannot read ${file}.`)
  }
  if (!stat.isFile() && !stat.isFIFO()) throw new UsageError(`${file} is not a file.`)
  return stat.size
}

/** The file's bytes, with the count of those read told as they come (the progress line). */
async function* fileChunks(file: string, onRead: (bytes: number) => void): AsyncGenerator<Buffer> {
  let read = 0
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 256 * 1024 })) {
    read += (chunk as Buffer).length
    onRead(read)
    yield chunk as Buffer
  }
}

const READERS = { 'mern-ums': readMernUsers, keycloak: readKeycloakUsers, csv: readCsvAccounts }

async function run(store: ImportStore, db: Kysely<Database>, options: Options, report: ImportReport): Promise<number> {
  const runId = crypto.randomUUID()
  const fileName = path.basename(options.file).replace(/[^\x20-\x7e]/g, '?')
  const label = options.format === 'keycloak' ? 'user' : 'line'
  let bytes = 0
  report.start('accounts', fs.statSync(options.file).size)
  const accounts = await importAccounts(store, READERS[options.format](fileChunks(options.file, (read) => (bytes = read))), {
    format: options.format,
    runId,
    fileName,
    batchSize: options.batchSize,
    onBatch: (notes, counts) => {
      report.lines(`${fileName} ${label}`, notes)
      report.progress(bytes, counts)
    },
  })
  let activity: ImportCounts | undefined
  if (options.activity) {
    const activityName = path.basename(options.activity).replace(/[^\x20-\x7e]/g, '?')
    report.start('activity', fs.statSync(options.activity).size)
    activity = await importActivity(store, readMernActivity(fileChunks(options.activity, (read) => (bytes = read))), {
      format: options.format,
      runId,
      fileName: activityName,
      batchSize: options.batchSize,
      onBatch: (notes, counts) => {
        report.lines(`${activityName} line`, notes)
        report.progress(bytes, counts)
      },
    })
  }
  report.stop()

  const would = options.dryRun ? 'would be ' : ''
  const skipped = accounts.alreadyThere + accounts.skipped
  const why = [accounts.alreadyThere ? `${accounts.alreadyThere} already there` : '', accounts.skipped ? `${accounts.skipped} without an e-mail` : '']
    .filter(Boolean)
    .join(', ')
  report.say(`Accounts: ${accounts.imported} ${would}imported, ${skipped} skipped${why ? ` (${why})` : ''}, ${accounts.refused} refused.`)
  if (activity) {
    report.say(
      `Activity entries: ${activity.imported} ${would}imported, ${activity.alreadyThere} already there, ${activity.skipped} skipped (their account was not imported), ${activity.refused} refused.`,
    )
  }
  const admins = await sql<{ n: string }>`
    SELECT count(*) AS n FROM users WHERE role = 'ADMIN' AND status = 'ACTIVE' AND email_verified_at IS NOT NULL
  `.execute(db)
  if (Number(admins.rows[0]!.n) === 0) {
    report.say(
      'No active administrator with a verified address: the next start (npm start) creates admin@localhost and prints its password; or make one now with npm run user:create -- --email <address> --role ADMIN.',
    )
  }
  const refused = accounts.refused + (activity?.refused ?? 0)
  if (refused > 0) report.say(`${refused} line${refused === 1 ? ' was' : 's were'} refused (listed above): fix them and run again; what was imported is skipped then.`)
  return refused > 0 ? 2 : 0
}

/** A real run: the product's runtime (it creates and migrates the database), each batch through commitChange. */
async function importForReal(config: Config, options: Options, report: ImportReport): Promise<number> {
  const runtime = await startRuntime(config, { background: false })
  try {
    const { ctx } = runtime
    const store: ImportStore = {
      write: (work) =>
        commitChange(ctx, async (change) => {
          // The embedded database lives in this process: a kill of the import is its crash too.
          await setImportTransaction(change.trx, { waitForDisk: ctx.dbKind !== 'postgres' })
          return work({ trx: change.trx, now: change.now })
        }),
      concurrency: ctx.dbKind === 'postgres' ? 2 : 1,
    }
    return await withSearchIndexesDeferred(
      ctx,
      () => run(store, ctx.db, options, report),
      (text) => report.say(text),
    )
  } finally {
    await runtime.close()
  }
}

/**
 * A dry run: every batch written into one transaction that is rolled back at the end, so it
 * reports what the real run would, duplicates across batches included, and leaves nothing. A data
 * directory that was never started (or an empty PostgreSQL database) is stood in for by an empty
 * database in memory; a database this version would first migrate is refused, as migrating it
 * would be a write.
 */
async function importDryRun(config: Config, options: Options, report: ImportReport): Promise<number> {
  const closers: (() => Promise<void>)[] = []
  try {
    let db: Kysely<Database> | undefined
    if (config.databaseUrl) {
      const database = await openDatabase({ url: config.databaseUrl, poolSize: 1 })
      closers.push(() => database.close())
      await probeDatabase(database.db, config.databaseUrl, 'DATABASE_URL')
      if (await hasSchema(database.db)) db = database.db
    } else if (fs.existsSync(path.join(config.dataDir, 'pgdata', 'PG_VERSION'))) {
      const lock = await lockDataDir(config.dataDir)
      closers.push(() => lock.release())
      const database = await openDatabase({ dataDir: config.dataDir })
      closers.push(() => database.close())
      db = database.db
    }
    if (db) {
      await refuseOlderSchema(db)
    } else {
      const lite = await PGlite.create({ extensions: PGLITE_EXTENSIONS })
      closers.push(() => lite.close())
      const database = await openDatabase({ pglite: lite })
      closers.push(() => database.close())
      db = database.db
      await migrateToLatest(db)
      report.say('There is no database yet: the dry run checks against an empty one.')
    }
    report.say('Dry run: nothing is written.')
    const trx = await db.startTransaction().execute()
    try {
      await setImportTransaction(trx, { waitForDisk: true })
      return await run({ write: (work) => work({ trx, now: new Date() }) }, trx, options, report)
    } finally {
      await trx.rollback().execute()
      report.say('Dry run: nothing was written.')
    }
  } finally {
    for (const close of closers.reverse()) await close()
  }
}

async function hasSchema(db: Kysely<Database>): Promise<boolean> {
  const table = await sql<{ present: boolean }>`SELECT to_regclass('kysely_migration') IS NOT NULL AS present`.execute(db)
  return table.rows[0]?.present === true
}

async function refuseOlderSchema(db: Kysely<Database>): Promise<void> {
  const known = Object.keys(await migrationProvider.getMigrations())
  const done = (await hasSchema(db)) ? (await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db)).rows.map((row) => row.name) : []
  if (known.some((name) => !done.includes(name))) {
    throw new ExplainedError(
      'the database has not been brought up to this version yet, which would be a write. Start the server once (or import without --dry-run), then try the dry run again.',
    )
  }
}

async function main(): Promise<number> {
  const parsed = options()
  const config = loadConfig()
  const report = new ImportReport()
  try {
    return await (parsed.dryRun ? importDryRun(config, parsed, report) : importForReal(config, parsed, report))
  } finally {
    report.stop()
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof DataDirLockedError) {
      console.error(
        `\nCannot import: ${error.message.replace(/ Stop it first.*$/, '')} Stop the server first: the embedded database serves one process at a time. Nothing was imported.\n`,
      )
    } else if (error instanceof ImportFileError) {
      console.error(`\nCannot import further: ${error.message} Batches committed before this point stay; running again skips them.\n`)
    } else if (error instanceof ExplainedError) {
      console.error(`\nCannot import: ${error.message}\n`)
    } else {
      console.error(
        `\nThe import failed: ${error instanceof Error ? error.message : String(error)}\nBatches committed before this point stay; running again skips them.\n`,
      )
    }
    process.exit(1)
  },
)
