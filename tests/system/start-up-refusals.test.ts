import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { EMBEDDED_POSTGRES_MAJOR } from '~server/db/database'
import { call, createPostgresDatabase, dataFolders, freePort, runCommand, said, spawnServer, startOutcome, startServer, stopServer, withTimeout } from './server-process'

/**
 * What the server, and the commands beside it, must refuse before they start, each in a sentence
 * saying what to do (`Cannot start: …`) with exit code 1, never a stack trace, and with nothing
 * changed.
 */
const folder = dataFolders()
/** How long a refusal may take: a start on a machine busy with the other test files takes seconds. */
const REFUSAL_WAIT_MS = 60_000

/**
 * Starts a server that must refuse to start: what it said, once it has exited with code 1 and no
 * stack trace. Its output is not a terminal, so every line of it is JSON (decision 0212).
 */
async function refusedStart(env: Record<string, string>): Promise<string> {
  const { process: server, ready } = await spawnServer(env)
  // Bounded, and saying where the server waits when it neither refuses nor listens.
  const outcome = await startOutcome(server, ready, REFUSAL_WAIT_MS).catch(async (error: unknown) => {
    server.child.kill('SIGKILL')
    await server.exited
    throw error
  })
  if (outcome === 'listening') {
    server.child.kill('SIGKILL')
    await server.exited
    throw new Error(`the server listens instead of refusing to start:\n${server.output()}`)
  }
  await expect(ready).rejects.toThrow(/before listening/)
  const { code } = await withTimeout(server.exited, 30_000, () => 'the server neither started nor exited')
  const output = server.output()
  expect(code, output).toBe(1)
  expect(output).not.toMatch(/^\s+at /m) // a message, not a stack trace
  expect(output.split('\n').filter((line) => line !== '' && !line.startsWith('{"level":'))).toEqual([])
  return said(output)
}

/**
 * An upgrade whose embedded database is built on another PostgreSQL major version cannot open the
 * data directory the previous one made. The server says so, and what to do, before touching it.
 */
describe('an embedded database made by another PostgreSQL major version', () => {
  const dataDir = folder('prepared')
  const versionFile = path.join(dataDir, 'pgdata', 'PG_VERSION')

  it('is the version PGlite itself writes into a data directory it creates', () => {
    // The copied data directory was created by this run's PGlite (tests/support/global-data-dir.ts).
    expect(fs.readFileSync(versionFile, 'utf8').trim()).toBe(EMBEDDED_POSTGRES_MAJOR)
  })

  it('is refused at start with a sentence saying what to do, a non-zero exit, and the folder left as it was', async () => {
    const older = String(Number(EMBEDDED_POSTGRES_MAJOR) - 1)
    fs.writeFileSync(versionFile, `${older}\n`)
    const before = fs.readdirSync(path.join(dataDir, 'pgdata'), { recursive: true }).length

    const output = await refusedStart({ DATA_DIR: dataDir })

    expect(output).toContain(
      `Cannot start: The embedded database in ${path.join(dataDir, 'pgdata')} was made by PostgreSQL ${older}; this version of Accounts embeds PostgreSQL ${EMBEDDED_POSTGRES_MAJOR} and cannot open it.`,
    )
    expect(output).toContain('npm run db:copy -- --to postgres://')
    expect(fs.readFileSync(versionFile, 'utf8')).toBe(`${older}\n`)
    expect(fs.readdirSync(path.join(dataDir, 'pgdata'), { recursive: true })).toHaveLength(before)
  })

  it('starts again, on the same folder, once the version is its own (the lock was let go)', async () => {
    fs.writeFileSync(versionFile, `${EMBEDDED_POSTGRES_MAJOR}\n`)
    const server = await startServer({ DATA_DIR: dataDir })
    try {
      expect((await call(server, 'GET', '/api/health')).body.data).toMatchObject({ status: 'ok', database: 'pglite' })
    } finally {
      expect((await stopServer(server)).code).toBe(0)
    }
  })
})

/** DATABASE_URL that leads nowhere usable: what is wrong, in a sentence, and never the password. */
describe('a DATABASE_URL the server cannot use', () => {
  const postgresUrl = process.env.TEST_DATABASE_URL

  it('no server answering there', async () => {
    const port = await freePort()
    const output = await refusedStart({ DATA_DIR: folder(), DATABASE_URL: `postgres://accounts:Secret-Password-1@127.0.0.1:${port}/accounts` })
    expect(output).toMatch(
      new RegExp(`Cannot start: No PostgreSQL server answers at 127\\.0\\.0\\.1:${port} \\(DATABASE_URL\\): .*ECONNREFUSED.*\\. Start it, or correct DATABASE_URL\\.`),
    )
    expect(output).not.toContain('Secret-Password-1')
  })

  it.skipIf(!postgresUrl)('a database that does not exist, and a user the server refuses', async () => {
    const server = new URL(postgresUrl!)
    const missing = new URL(postgresUrl!)
    missing.pathname = '/accounts_that_nobody_created'
    const absent = await refusedStart({ DATA_DIR: folder(), DATABASE_URL: missing.toString() })
    expect(absent).toContain(
      `Cannot start: The PostgreSQL server at ${server.hostname}:${server.port || 5432} has no database "accounts_that_nobody_created" (DATABASE_URL). Create it (createdb accounts_that_nobody_created), or correct DATABASE_URL.`,
    )

    const database = await createPostgresDatabase(postgresUrl!)
    try {
      const stranger = new URL(database.url)
      stranger.username = 'nobody_at_all'
      stranger.password = 'Secret-Password-2'
      const refused = await refusedStart({ DATA_DIR: folder(), DATABASE_URL: stranger.toString() })
      expect(refused).toContain(`Cannot start: The PostgreSQL server at ${server.hostname}:${server.port || 5432} refused the user "nobody_at_all" (DATABASE_URL)`)
      expect(refused).not.toContain('Secret-Password-2')
    } finally {
      await database.drop()
    }
  })
})

describe('first-administrator settings that cannot be used are refused before the port and the database are touched', () => {
  const cases: { name: string; env: Record<string, string>; says: string }[] = [
    {
      name: 'ADMIN_EMAIL alone',
      env: { ADMIN_EMAIL: 'boss@example.com' },
      says: 'ADMIN_EMAIL and ADMIN_PASSWORD go together, and only ADMIN_EMAIL is set. Set both, or neither',
    },
    {
      name: 'ADMIN_PASSWORD alone',
      env: { ADMIN_PASSWORD: 'Operator-Chosen-2026!' },
      says: 'ADMIN_EMAIL and ADMIN_PASSWORD go together, and only ADMIN_PASSWORD is set.',
    },
    { name: 'a password the rules refuse', env: { ADMIN_EMAIL: 'boss@example.com', ADMIN_PASSWORD: 'short' }, says: 'The password for boss@example.com is refused:' },
  ]
  it.each(cases)('$name', async ({ env, says }) => {
    const dir = folder()
    const output = await refusedStart({ DATA_DIR: dir, ...env })
    expect(output).toContain(`Cannot start: ${says}`)
    expect(output).not.toContain('listening')
    expect(output).not.toContain('Operator-Chosen-2026!')
    expect(fs.readdirSync(dir)).toEqual([])
  })
})

describe('a HOST the server cannot listen on', () => {
  it('a name that does not resolve', async () => {
    const output = await refusedStart({ DATA_DIR: folder('prepared'), HOST: 'no-such-host.invalid' })
    expect(output).toContain(
      "Cannot start: The host name no-such-host.invalid does not resolve here: set HOST to one of this machine's addresses (0.0.0.0 for all of them).",
    )
  })
})

describe('a DATA_DIR the server cannot use', () => {
  it('is refused in a sentence: here a file where the folder should be', async () => {
    const file = path.join(folder(), 'data')
    fs.writeFileSync(file, 'not a folder')
    const output = await refusedStart({ DATA_DIR: file })
    expect(output).toContain(`Cannot start: The data directory ${file} cannot be used: it, or a folder on its path, is a file. Set DATA_DIR to a folder.`)
    expect(fs.readFileSync(file, 'utf8')).toBe('not a folder')
  })

  it('is refused with DATABASE_URL too, before the database is tried, while it would keep the generated secret or the outbox', async () => {
    const file = path.join(folder(), 'data')
    fs.writeFileSync(file, 'not a folder')
    const port = await freePort()
    const output = await refusedStart({ DATA_DIR: file, DATABASE_URL: `postgres://accounts@127.0.0.1:${port}/accounts` })
    expect(output).toContain(`Cannot start: The data directory ${file} cannot be used: it, or a folder on its path, is a file. Set DATA_DIR to a folder.`)
    expect(output).not.toContain('No PostgreSQL server answers')
  })
})

describe('the commands beside the server', () => {
  /** Runs a command that must refuse: what it printed, once it has exited with code 1 and no stack trace. */
  async function refusedCommand(script: string, env: Record<string, string>, args: string[] = []): Promise<string> {
    const { code, output } = await runCommand(script, env, args)
    expect(code, output).toBe(1)
    expect(output).not.toMatch(/^\s+at /m)
    return output
  }

  it('db:seed refuses a production database, and one that nobody answers for', async () => {
    const url = `postgres://accounts@127.0.0.1:${await freePort()}/accounts`
    const live = await refusedCommand('src/server/cli/seed.ts', { NODE_ENV: 'production', DATABASE_URL: url })
    expect(live).toContain('Cannot seed: db:seed fills a database with made-up accounts for benchmarks and demos, and NODE_ENV=production says this one is live.')
    const nobody = await refusedCommand('src/server/cli/seed.ts', { DATABASE_URL: url })
    expect(nobody).toMatch(/Cannot seed: No PostgreSQL server answers at 127\.0\.0\.1:\d+ \(DATABASE_URL\)/)
  })

  it('oidc:rotate-keys answers --help, and refuses what it does not know, without rotating anything', async () => {
    const dir = path.join(folder(), 'data')
    const help = await runCommand('src/server/cli/oidc-rotate-keys.ts', { DATA_DIR: dir }, ['--help'])
    expect(help.code).toBe(0)
    expect(help.output).toContain('Usage: npm run oidc:rotate-keys')
    const unknown = await refusedCommand('src/server/cli/oidc-rotate-keys.ts', { DATA_DIR: dir }, ['--now'])
    expect(unknown).toContain("Cannot rotate the keys: Unknown option '--now'")
    expect(fs.existsSync(dir)).toBe(false)
  })
})
