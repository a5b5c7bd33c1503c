import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import bcryptjs from 'bcryptjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT_WITH_PARENT, ROOT } from '../support/server-process'
import { csvLine, keycloakCredential, keycloakRealm, seedActivityLine, seedUserLine } from '../support/import-files'
import {
  call,
  createPostgresDatabase,
  emptyDataDir,
  killStrayServers,
  printedAdmin,
  queryStore,
  removeDataDir,
  runCommand,
  startServer,
  stopServer,
  STORES,
  tempDataDir,
  withTimeout,
} from './server-process'

/**
 * `npm run users:import` as an operator runs it (contract section 14, docs/moving-in.md): files as
 * the old systems write them (tests/support/import-files.ts), the report of bad lines with their
 * numbers, the counts and exit codes, a second run, a dry run, a run killed halfway and run again,
 * on the embedded database (PGlite) or on PostgreSQL (TEST_DATABASE_URL), then the people signing in
 * with their old passwords on the real server.
 */
const IMPORT = 'src/server/cli/import-users/import-users.ts'

const files = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-import-files-'))
const dirs: string[] = []
const drops: (() => Promise<void>)[] = []
afterAll(async () => {
  await killStrayServers()
  for (const drop of drops.splice(0)) await drop()
  for (const dir of dirs.splice(0)) removeDataDir(dir)
  fs.rmSync(files, { recursive: true, force: true })
})

function file(name: string, lines: string[] | string): string {
  const where = path.join(files, `${Math.random().toString(36).slice(2)}-${name}`)
  fs.writeFileSync(where, Array.isArray(lines) ? `${lines.join('\n')}\n` : lines)
  return where
}

/** A place for the accounts: a data folder (never started, or prepared), and a database of its own on PostgreSQL. */
async function store(postgresUrl: string | undefined, kind: 'never started' | 'prepared' = 'prepared') {
  const dataDir = kind === 'never started' ? emptyDataDir() : tempDataDir(postgresUrl)
  dirs.push(dataDir)
  const database = postgresUrl ? await createPostgresDatabase(postgresUrl) : undefined
  if (database) drops.push(database.drop)
  const env: Record<string, string> = { DATA_DIR: dataDir, RATE_LIMIT: 'off', ...(database ? { DATABASE_URL: database.url } : {}) }
  const query = <T>(sql: string) => queryStore<T>({ dataDir, ...(database ? { databaseUrl: database.url } : {}) }, sql)
  return { dataDir, env, query }
}

const importUsers = (env: Record<string, string>, args: string[]) => runCommand(IMPORT, env, args)

describe.each(STORES)('moving in on $store', ({ postgresUrl }) => {
  describe('from the seed application', () => {
    // One story in steps, each a test of its own: a file, a dry run, the import, a second run, the sign-ins.
    let place: Awaited<ReturnType<typeof store>>
    let args: string[] = []
    let refusals: string[] = []
    beforeAll(async () => {
      place = await store(postgresUrl, 'never started')
      const ada = seedUserLine({ name: 'Ada Admin', email: 'Ada@Example.com', password: 'ada-old-secret', role: 'ADMIN', phone: '+44 20 7946 0000' })
      const bob = seedUserLine({ name: 'Bob Builder', email: 'bob@example.com', password: 'bobs-old-secret', role: 'MODERATOR', createdAt: '2024-11-02T08:00:00.000Z' })
      const cyd = seedUserLine({ name: 'Cyd Closed', email: 'cyd@example.com', password: 'cyds-old-secret', status: 'SUSPENDED' })
      const users = file('users.json', [
        ada.line,
        bob.line,
        seedUserLine({ name: 'Bob Twice', email: 'BOB@example.com', password: 'x' }).line,
        seedUserLine({ name: 'Pay Pal', email: 'pаypal@example.com', password: 'x' }).line,
        seedUserLine({ name: 'Root User', email: 'root@example.com', password: 'x', role: 'ROOT' }).line,
        '',
        cyd.line,
        '{"_id":{"$oid":"65b000000000000000000009"},"email":"broken@example.com","name":"Broken"',
      ])
      const activity = file('activity_logs.json', [
        seedActivityLine({ userId: ada.id, activity: 'User registered', at: '2025-01-15T09:30:00.000Z' }),
        seedActivityLine({ userId: ada.id, activity: 'Email verified', at: '2025-01-15T09:31:00.000Z' }),
        seedActivityLine({ userId: bob.id, activity: 'User logged in', at: '2025-02-01T10:00:00.000Z', userAgent: 'Mozilla/5.0 (Macintosh) Safari/605.1.15' }),
        seedActivityLine({ userId: ada.id, activity: 'User logged in', at: '2025-02-02T10:00:00.000Z', ip: '203.0.113.9' }),
        seedActivityLine({ userId: '65b0000000000000000000ff', activity: 'User logged in', at: '2025-02-03T10:00:00.000Z' }),
        '{"_id":{"$oid":"65b0000000000000000000aa"},"userId":{"$oid":"' + ada.id + '"},"createdAt":{"$date":"2025-02-04T10:00:00.000Z"}}',
      ])
      args = ['--file', users, '--format', 'mern-ums', '--activity', activity]
      refusals = [
        'users.json line 3: refused: the same address as line 2 (addresses are compared in their normal form, without regard to case)',
        'users.json line 4: refused: the address "p\\u{430}ypal@example.com" is a look-alike (letters of several scripts, or letters that pass for Latin ones)',
        'users.json line 5: refused: unknown role "ROOT" (one of ADMIN, DEVELOPER, MODERATOR, CLIENT)',
        'users.json line 8: refused: not a JSON document',
        'activity_logs.json line 6: refused: no activity',
      ]
    })

    it('a dry run on a data folder never started reports every bad line and the counts, and writes nothing', async () => {
      const dry = await importUsers(place.env, [...args, '--dry-run'])
      expect(dry.code, dry.output).toBe(2)
      for (const line of refusals) expect(dry.output).toContain(line)
      expect(dry.output).toContain('Accounts: 3 would be imported, 0 skipped, 4 refused.')
      expect(dry.output).toContain('Activity entries: 4 would be imported, 0 already there, 1 skipped (their account was not imported), 1 refused.')
      expect(dry.output).toContain('Dry run: nothing was written.')
      if (!postgresUrl) expect(fs.existsSync(path.join(place.dataDir, 'pgdata'))).toBe(false)
    })

    it('the import creates the database, brings the accounts and their activity, and reports the same lines; its output holds no hash', async () => {
      const imported = await importUsers(place.env, args)
      expect(imported.code, imported.output).toBe(2)
      for (const line of refusals) expect(imported.output).toContain(line)
      expect(imported.output).toContain('Accounts: 3 imported, 0 skipped, 4 refused.')
      expect(imported.output).toContain('Activity entries: 4 imported, 0 already there, 1 skipped (their account was not imported), 1 refused.')
      // No password, hash or salt of the file in what the command says.
      expect(imported.output).not.toMatch(/\$2[aby]\$/)
    })

    it('a second run skips what is there and says how many', async () => {
      const again = await importUsers(place.env, args)
      expect(again.code, again.output).toBe(2)
      expect(again.output).toContain('Accounts: 0 imported, 3 skipped (3 already there), 4 refused.')
      expect(again.output).toContain('Activity entries: 0 imported, 4 already there, 1 skipped (their account was not imported), 1 refused.')
    })

    it("keeps each account's fields, and the activity entries in their own order with their address and browser", async () => {
      const accounts = await place.query<{ email: string; name: string; phone: string | null; role: string; status: string; verified: boolean; created_at: Date }>(
        `SELECT email, name, phone, role, status, email_verified_at IS NOT NULL AS verified, created_at FROM users ORDER BY email`,
      )
      expect(accounts.map(({ created_at: _, ...rest }) => rest)).toEqual([
        { email: 'ada@example.com', name: 'Ada Admin', phone: '+44 20 7946 0000', role: 'ADMIN', status: 'ACTIVE', verified: true },
        { email: 'bob@example.com', name: 'Bob Builder', phone: null, role: 'MODERATOR', status: 'ACTIVE', verified: true },
        { email: 'cyd@example.com', name: 'Cyd Closed', phone: null, role: 'CLIENT', status: 'SUSPENDED', verified: true },
      ])
      expect(new Date(accounts[1]!.created_at).toISOString()).toBe('2024-11-02T08:00:00.000Z')
      const entries = await place.query<{
        email: string
        activity: string
        kind: string
        details: string | null
        ip_address: string | null
        user_agent: string | null
        at: string
      }>(
        `SELECT u.email, a.activity, a.kind, a.details, a.ip_address, a.user_agent, to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS at
       FROM activities a JOIN users u ON u.id = a.user_id WHERE a.import_source IS NOT NULL ORDER BY a.id`,
      )
      expect(entries.map((e) => [e.email, e.activity, e.kind, e.at])).toEqual([
        ['ada@example.com', 'User registered', 'registered', '2025-01-15T09:30'],
        ['ada@example.com', 'Email verified', 'verified', '2025-01-15T09:31'],
        ['bob@example.com', 'User logged in', 'logged in', '2025-02-01T10:00'],
        ['ada@example.com', 'User logged in', 'logged in', '2025-02-02T10:00'],
      ])
      expect(entries[2]).toMatchObject({
        details: '{"email":"someone@example.com"}',
        ip_address: '::ffff:127.0.0.1',
        user_agent: 'Mozilla/5.0 (Macintosh) Safari/605.1.15',
      })
      expect(entries[3]!.ip_address).toBe('203.0.113.9')
      const marks = await place.query<{ email: string; details: string }>(
        `SELECT u.email, a.details FROM activities a JOIN users u ON u.id = a.user_id WHERE a.activity = 'Imported from mern-ums' ORDER BY u.email`,
      )
      expect(marks.map((m) => m.email)).toEqual(['ada@example.com', 'bob@example.com', 'cyd@example.com'])
      expect(marks[0]!.details).toMatch(/users\.json, line 1$/)
    })

    it('lets everyone sign in with their old password, and moves each to Argon2id', async () => {
      const server = await startServer(place.env)
      try {
        // The imported active admin can act: no first administrator is made and printed.
        expect(printedAdmin(server.output())).toBeNull()
        expect((await call(server, 'POST', '/api/auth/login', { email: 'ada@example.com', password: 'wrong-secret' })).status).toBe(401)
        const signedIn = await call(server, 'POST', '/api/auth/login', { email: 'ADA@example.com', password: 'ada-old-secret' })
        expect(signedIn.status).toBe(200)
        expect(signedIn.body.data.user).toMatchObject({ email: 'ada@example.com', role: 'ADMIN', status: 'ACTIVE', emailVerified: true })
        expect((await call(server, 'POST', '/api/auth/login', { email: 'bob@example.com', password: 'bobs-old-secret' })).status).toBe(200)
        // Suspended there, suspended here: told only to someone who knows the password.
        const cydSignIn = await call(server, 'POST', '/api/auth/login', { email: 'cyd@example.com', password: 'cyds-old-secret' })
        expect([cydSignIn.status, cydSignIn.body.message]).toEqual([403, 'Account is suspended'])
      } finally {
        await stopServer(server)
      }
      const hashes = await place.query<{ email: string; password_hash: string }>(`SELECT email, password_hash FROM users ORDER BY email`)
      for (const { email, password_hash } of hashes) expect(password_hash.startsWith('$argon2id$v=19$m=19456,t=2,p=1$'), email).toBe(true)
    })
  })

  it('from Keycloak and from a CSV file: users reported by their position, those without an e-mail skipped, exit code 0 with nothing refused', async () => {
    const place = await store(postgresUrl)
    const realm = file(
      'realm.json',
      keycloakRealm([
        {
          username: 'kai',
          email: 'kai@example.com',
          firstName: 'Kai',
          lastName: 'Kloak',
          realmRoles: ['default-roles-company', 'Developer'],
          credentials: [keycloakCredential('kai-keycloak-pw', 'pbkdf2-sha256')],
        },
        { username: 'service-account-robot' },
        { username: 'kim', email: 'kim@example.com', enabled: false, realmRoles: ['admin', 'moderator'], credentials: [keycloakCredential('kim-keycloak-pw', 'argon2')] },
      ]),
    )
    const fromKeycloak = await importUsers(place.env, ['--file', realm, '--format', 'keycloak'])
    expect(fromKeycloak.code, fromKeycloak.output).toBe(0)
    expect(fromKeycloak.output).toContain('realm.json user 2: skipped: no e-mail address')
    expect(fromKeycloak.output).toContain('Accounts: 2 imported, 1 skipped (1 without an e-mail), 0 refused.')

    const csv = file('people.csv', [
      'email,name,phone,role,status,emailVerified,passwordHash,createdAt',
      csvLine(['carol@example.com', 'Carol, Chief', '', 'moderator', 'active', 'true', bcryptjs.hashSync('carols-csv-pw', 6), '2023-05-06T07:08:09Z']),
      csvLine(['dan@example.com', 'Dan', '', 'client', 'inactive', 'false', '', '']),
      csvLine(['kai@example.com', 'Kai Again', '', '', '', 'true', '', '']),
    ])
    const fromCsv = await importUsers(place.env, ['--file', csv, '--format', 'csv'])
    expect(fromCsv.code, fromCsv.output).toBe(0)
    expect(fromCsv.output).toContain('Accounts: 2 imported, 1 skipped (1 already there), 0 refused.')

    const badCsv = file('bad.csv', ['email,nickname', 'eve@example.com,Evie'])
    const refused = await importUsers(place.env, ['--file', badCsv, '--format', 'csv'])
    expect(refused.code, refused.output).toBe(1)
    expect(refused.output).toContain('the CSV header names a column this import does not know, "nickname"')

    const rows = await place.query<{ email: string; name: string; role: string; status: string; verified: boolean }>(
      `SELECT email, name, role, status, email_verified_at IS NOT NULL AS verified FROM users WHERE email <> 'eve@example.com' AND email LIKE '%@example.com' ORDER BY email`,
    )
    expect(rows).toEqual([
      { email: 'carol@example.com', name: 'Carol, Chief', role: 'MODERATOR', status: 'ACTIVE', verified: true },
      { email: 'dan@example.com', name: 'Dan', role: 'CLIENT', status: 'INACTIVE', verified: false },
      { email: 'kai@example.com', name: 'Kai Kloak', role: 'DEVELOPER', status: 'ACTIVE', verified: true },
      { email: 'kim@example.com', name: 'kim', role: 'ADMIN', status: 'INACTIVE', verified: true },
    ])

    const server = await startServer(place.env)
    try {
      expect((await call(server, 'POST', '/api/auth/login', { email: 'kai@example.com', password: 'kai-keycloak-pw' })).status).toBe(200)
      expect((await call(server, 'POST', '/api/auth/login', { email: 'carol@example.com', password: 'carols-csv-pw' })).status).toBe(200)
      expect((await call(server, 'POST', '/api/auth/login', { email: 'kim@example.com', password: 'kim-keycloak-pw' })).body.message).toBe('Account is inactive')
    } finally {
      await stopServer(server)
    }
  }, 240_000)

  it('killed halfway and run again: nothing doubled, nothing lost', async () => {
    const place = await store(postgresUrl)
    const lines = Array.from({ length: 40 }, (_, i) =>
      i === 14
        ? seedUserLine({ name: 'Not An Address', email: 'not-an-address', password: 'x', cost: 4 }).line
        : seedUserLine({ name: `Person ${i + 1}`, email: `person${i + 1}@example.com`, password: `pw-${i + 1}`, cost: 4 }).line,
    )
    // The first run reads through a pipe that is fed the first 35 lines only, and killed once its
    // second batch (lines 11 to 20, with line 15's refusal) is committed and reported. On PostgreSQL
    // two batches are written at once, and a batch is reported when the next one starts: the third
    // (lines 21 to 30) is then in flight, and the kill finds it committed or not, never in part.
    const fifo = path.join(files, 'users-pipe.json')
    execFileSync('mkfifo', [fifo])
    const child = spawnImport(place.env, ['--file', fifo, '--format', 'mern-ums', '--batch-size', '10'])
    try {
      const feed = fs.createWriteStream(fifo)
      feed.on('error', () => {})
      feed.write(`${lines.slice(0, 35).join('\n')}\n`)
      await withTimeout(child.reported('line 15: refused'), 60_000, () => `the first run did not report line 15:\n${child.output()}`)
      child.process.kill('SIGKILL')
      await child.exited
      feed.destroy()
    } finally {
      child.process.kill('SIGKILL')
    }
    const halfway = Number((await place.query<{ n: string }>(`SELECT count(*) AS n FROM imported_accounts`))[0]!.n)
    expect([19, 29]).toContain(halfway)

    const whole = file('users.json', lines)
    const rerun = await importUsers(place.env, ['--file', whole, '--format', 'mern-ums', '--batch-size', '10'])
    expect(rerun.code, rerun.output).toBe(2)
    expect(rerun.output).toContain(`Accounts: ${39 - halfway} imported, ${halfway} skipped (${halfway} already there), 1 refused.`)
    const counts = await place.query<{ users: number; distinct_emails: number; imported: number; marks: number }>(
      `SELECT (SELECT count(*)::int FROM users WHERE email LIKE 'person%') AS users,
              (SELECT count(DISTINCT email)::int FROM users WHERE email LIKE 'person%') AS distinct_emails,
              (SELECT count(*)::int FROM imported_accounts) AS imported,
              (SELECT count(*)::int FROM activities WHERE activity = 'Imported from mern-ums') AS marks`,
    )
    expect(counts[0]).toEqual({ users: 39, distinct_emails: 39, imported: 39, marks: 39 })
  }, 240_000)
})

describe('moving in on the embedded database', () => {
  it('is refused while the server runs, and an import of only inactive administrators still leaves the first one printed', async () => {
    const place = await store(undefined, 'never started')
    const users = file('users.json', [
      seedUserLine({ name: 'Old Admin', email: 'old.admin@example.com', password: 'old-admin-pw', role: 'ADMIN', status: 'INACTIVE', cost: 4 }).line,
      seedUserLine({ name: 'Unverified Admin', email: 'unverified.admin@example.com', password: 'x', role: 'ADMIN', emailVerified: false, cost: 4 }).line,
    ])
    const imported = await importUsers(place.env, ['--file', users, '--format', 'mern-ums'])
    expect(imported.code, imported.output).toBe(0)
    expect(imported.output).toContain('No active administrator with a verified address: the next start (npm start) creates admin@localhost and prints its password')

    const server = await startServer(place.env)
    try {
      const admin = printedAdmin(server.output())
      expect(admin?.email).toBe('admin@localhost')
      expect((await call(server, 'POST', '/api/auth/login', admin!)).status).toBe(200)

      const whileRunning = await importUsers(place.env, ['--file', users, '--format', 'mern-ums'])
      expect(whileRunning.code, whileRunning.output).toBe(1)
      expect(whileRunning.output).toContain('Stop the server first: the embedded database serves one process at a time. Nothing was imported.')
    } finally {
      await stopServer(server)
    }
  }, 240_000)

  it('says what it needs in a sentence: the file, a known format', async () => {
    const place = await store(undefined)
    const unknown = await importUsers(place.env, ['--file', 'nowhere.json', '--format', 'mern-ums'])
    expect([unknown.code, unknown.output.trim()]).toEqual([1, 'Cannot import: cannot read nowhere.json.'])
    const format = await importUsers(place.env, ['--file', 'package.json', '--format', 'ldif'])
    expect(format.code).toBe(1)
    expect(format.output).toContain('Cannot import: unknown format "ldif": one of mern-ums, keycloak, csv.')
    const array = await importUsers(place.env, ['--file', file('users.json', '[{"_id":{"$oid":"65b000000000000000000001"}}]\n'), '--format', 'mern-ums'])
    expect(array.code).toBe(1)
    expect(array.output).toContain('export the collection with mongoexport without --jsonArray')
  })
})

/** The import as a process of its own, for the test that kills it: its output, and a wait for a report line. */
function spawnImport(env: Record<string, string>, args: string[]) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', '--import', EXIT_WITH_PARENT, IMPORT, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let output = ''
  const waiting: { text: string; resolve: () => void }[] = []
  const onData = (chunk: Buffer) => {
    output += chunk.toString()
    for (const wait of waiting.filter((w) => output.includes(w.text))) wait.resolve()
  }
  child.stdout!.on('data', onData)
  child.stderr!.on('data', onData)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    process: child,
    exited,
    output: () => output,
    reported: (text: string) => new Promise<void>((resolve) => (output.includes(text) ? resolve() : waiting.push({ text, resolve }))),
  }
}
