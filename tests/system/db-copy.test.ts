import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMailbox, type Mailbox } from '../support/mailbox'
import { dataUrl, pngImage } from '../api/helpers/images'
import { call, createPostgresDatabase, freePort, killStrayServers, queryStore, removeDataDir, runCommand, startServer, stopServer, tempDataDir } from './server-process'
import { POSTGRES_URL, postgresMissing } from './services'

/**
 * `npm run db:copy -- --to postgres://…`: a populated embedded database
 * (accounts, a picture, sessions, activity entries, queued mail) goes to an empty PostgreSQL
 * database, and the server started on it with the printed settings carries on where the embedded
 * one stopped: the old password signs in, the old session still works, the picture is served, the
 * queued mail is sent. And every refusal changes nothing.
 */
const missing = await postgresMissing()
const ADMIN = { email: 'copy.admin@example.com', password: 'Moving-House-2026!' }

/** Runs `npm run db:copy` as the command line does, with only these settings. */
const dbCopy = (env: Record<string, string>, args: string[]) => runCommand('src/server/cli/db-copy.ts', env, args)

async function tablesIn(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
    )
    return rows.map((row) => row.name)
  } finally {
    await client.end()
  }
}

const COUNTED = [
  'users',
  'sessions',
  'refresh_tokens',
  'one_time_tokens',
  'activities',
  'pictures',
  'mail_jobs',
  'user_counts',
  'activity_counts',
  'sign_ups_by_day',
  'rate_limits',
  'imported_accounts',
  'imported_password_kinds',
]

async function counts(store: { dataDir: string; databaseUrl?: string }): Promise<Record<string, number>> {
  const selects = COUNTED.map((table) => `(SELECT count(*) FROM ${table})::int AS ${table}`).join(', ')
  const [row] = await queryStore<Record<string, number>>(store, `SELECT ${selects}`)
  return row!
}

describe.skipIf(missing)(`db:copy from the embedded database to PostgreSQL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const dataDir = tempDataDir()
  const databases: { drop(): Promise<void> }[] = []
  let mailbox: Mailbox
  let closedSmtpPort = 0
  let session = { accessToken: '', refreshToken: '' }
  let pictureUrl = ''
  let picture = Buffer.alloc(0)
  const newDatabase = async () => {
    const database = await createPostgresDatabase(POSTGRES_URL)
    databases.push(database)
    return database
  }

  beforeAll(async () => {
    mailbox = await startMailbox()
    closedSmtpPort = await freePort()
    // A server on the embedded database, used a little. Its mail cannot go out (nothing listens
    // on SMTP_URL's port), so the reset e-mail asked for below is still queued when it stops.
    const server = await startServer({ DATA_DIR: dataDir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, SMTP_URL: `smtp://127.0.0.1:${closedSmtpPort}` })
    try {
      const signedIn = await call(server, 'POST', '/api/auth/login', ADMIN)
      expect(signedIn.status).toBe(200)
      session = signedIn.body.data
      const { accessToken, csrfToken } = signedIn.body.data as { accessToken: string; csrfToken: string }
      const upload = await fetch(`${server.url}/api/users/profile-picture`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}`, 'x-csrf-token': csrfToken },
        body: JSON.stringify({ profilePicture: dataUrl(await pngImage(64, 64)) }),
      })
      expect(upload.status).toBe(200)
      pictureUrl = ((await upload.json()) as { data: { profilePicture: string } }).data.profilePicture
      picture = Buffer.from(await (await fetch(`${server.url}${pictureUrl}`)).arrayBuffer())
      for (const name of ['Ada Lovelace', 'Grace Hopper']) {
        const email = `${name.split(' ')[0]!.toLowerCase()}@example.com`
        expect(
          (await call(server, 'POST', '/api/auth/register', { name, email, password: 'Analytical-Engine-1843!', confirmPassword: 'Analytical-Engine-1843!' })).status,
        ).toBe(201)
      }
      expect((await call(server, 'POST', '/api/auth/login', { ...ADMIN, password: 'Not-The-Password-1!' })).status).toBe(401)
      expect((await call(server, 'POST', '/api/auth/forgot-password', { email: ADMIN.email })).status).toBe(200)
    } finally {
      expect((await stopServer(server)).code).toBe(0)
    }
  })

  afterAll(async () => {
    await killStrayServers()
    await mailbox?.close()
    for (const database of databases) await database.drop().catch(() => {})
    removeDataDir(dataDir)
  })

  it('refuses while the server holds the data directory, and changes nothing', async () => {
    const target = await newDatabase()
    const server = await startServer({ DATA_DIR: dataDir, SMTP_URL: `smtp://127.0.0.1:${closedSmtpPort}` })
    try {
      const run = await dbCopy({ DATA_DIR: dataDir }, ['--to', target.url])
      expect(run.code, run.output).toBe(1)
      expect(run.output).toMatch(/already using the data directory .* Stop the server first/)
      expect(run.output).toContain('Nothing was changed')
      expect(await tablesIn(target.url)).toEqual([])
    } finally {
      expect((await stopServer(server)).code).toBe(0)
    }
  })

  it('refuses an unreachable target', async () => {
    const nowhere = `postgres://postgres@127.0.0.1:${await freePort()}/accounts`
    const run = await dbCopy({ DATA_DIR: dataDir }, ['--to', nowhere])
    expect(run.code, run.output).toBe(1)
    expect(run.output).toMatch(/No PostgreSQL server answers at 127\.0\.0\.1:\d+ \(--to\): .*ECONNREFUSED.*Start it, or correct --to\. Nothing was changed/)
  })

  it('refuses a target that is not empty, and leaves it as it was', async () => {
    const target = await newDatabase()
    const client = new pg.Client({ connectionString: target.url })
    await client.connect()
    await client.query('CREATE TABLE notes (id int PRIMARY KEY, text text); INSERT INTO notes VALUES (1, $$keep me$$)')
    await client.end()
    const run = await dbCopy({ DATA_DIR: dataDir }, ['--to', target.url])
    expect(run.code, run.output).toBe(1)
    expect(run.output).toMatch(/is not empty \(it has public\.notes\)/)
    expect(await tablesIn(target.url)).toEqual(['public.notes'])
    expect(await queryStore({ dataDir, databaseUrl: target.url }, 'SELECT text FROM notes')).toEqual([{ text: 'keep me' }])
  })

  it('says how to call it without --to', async () => {
    const run = await dbCopy({ DATA_DIR: dataDir }, [])
    expect(run.code).toBe(2)
    expect(run.output).toMatch(/Usage: npm run db:copy -- --to postgres:\/\//)
  })

  it('copies every table and row, and the server on PostgreSQL carries on where the embedded one stopped', async () => {
    const before = await counts({ dataDir })
    expect(before.users).toBe(3)
    expect(before.pictures).toBe(1)
    expect(before.sessions).toBeGreaterThanOrEqual(1)
    expect(before.activities).toBeGreaterThanOrEqual(5)
    expect(before.mail_jobs).toBeGreaterThanOrEqual(1)
    const [lastEntry] = await queryStore<{ id: string }>({ dataDir }, 'SELECT max(id)::text AS id FROM activities')

    const target = await newDatabase()
    const run = await dbCopy({ DATA_DIR: dataDir }, ['--to', target.url])
    expect(run.code, run.output).toBe(0)
    const secret = fs.readFileSync(path.join(dataDir, 'secrets', 'auth-secret'), 'utf8').trim()
    expect(run.output).toContain(`\n  DATABASE_URL=${target.url}\n`)
    expect(run.output).toContain(`\n  AUTH_SECRET=${secret}\n`)
    expect(run.output).toMatch(/Copied \d+ tables and \d+ rows .* verified/)

    const store = { dataDir, databaseUrl: target.url }
    expect(await counts(store)).toEqual(before)
    // Rows came over as they were: the counters were not counted again, the search text not rewritten.
    const sums = `SELECT (SELECT sum(n) FROM user_counts)::int AS users, (SELECT sum(n) FROM activity_counts)::int AS entries,
      (SELECT sum(n) FROM sign_ups_by_day)::int AS "signUps",
      (SELECT string_agg(search_text, '|' ORDER BY id) FROM activities) AS search, (SELECT string_agg(email || role || status, '|' ORDER BY email) FROM users) AS people`
    const [copied] = await queryStore<Record<string, unknown>>(store, sums)
    expect(copied).toEqual((await queryStore<Record<string, unknown>>({ dataDir }, sums))[0])
    expect(copied!.users).toBe(3)
    expect(copied!.signUps).toBe(3)
    expect(copied!.entries).toBe(before.activities)

    // The server on PostgreSQL, with only what db:copy printed (and a data directory of its own).
    const freshDir = tempDataDir()
    try {
      const server = await startServer({ DATA_DIR: freshDir, DATABASE_URL: target.url, AUTH_SECRET: secret, SMTP_URL: mailbox.smtpUrl })
      try {
        // The session from before the move still works (same secret, same session rows)...
        expect((await call(server, 'GET', '/api/auth/me', undefined, session.accessToken)).body.data.email).toBe(ADMIN.email)
        expect((await call(server, 'POST', '/api/auth/refresh-token', { refreshToken: session.refreshToken })).status).toBe(200)
        // ...the old password signs in...
        const signedIn = await call(server, 'POST', '/api/auth/login', ADMIN)
        expect(signedIn.status).toBe(200)
        expect(signedIn.body.data.user.profilePicture).toBe(pictureUrl)
        // ...the picture is served, byte for byte...
        const served = await fetch(`${server.url}${pictureUrl}`)
        expect(served.status).toBe(200)
        expect(
          crypto
            .createHash('sha256')
            .update(Buffer.from(await served.arrayBuffer()))
            .digest('hex'),
        ).toBe(crypto.createHash('sha256').update(picture).digest('hex'))
        // ...the e-mail queued on the embedded database is sent (its sealed payload opened with the same secret)...
        const reset = await mailbox.next(ADMIN.email, /reset/i, 60_000)
        expect(reset.links.some((link) => link.includes('/reset-password?token='))).toBe(true)
        // ...and new activity entries continue the numbering.
        const [next] = await queryStore<{ id: string }>(store, 'SELECT max(id)::text AS id FROM activities')
        expect(BigInt(next!.id)).toBeGreaterThan(BigInt(lastEntry!.id))
      } finally {
        expect((await stopServer(server)).code).toBe(0)
      }
    } finally {
      removeDataDir(freshDir)
    }

    // The embedded database is left as it was.
    expect(await counts({ dataDir })).toEqual(before)
  })
})
