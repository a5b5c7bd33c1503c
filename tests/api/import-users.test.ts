import crypto from 'node:crypto'
import { hash as argon2Hash } from '@node-rs/argon2'
import phc from '@phc/format'
import pbkdf2Phc from '@phc/pbkdf2'
import bcryptjs from 'bcryptjs'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { NATIVE_KIND } from '~server/auth/password'
import { commitChange } from '~server/change'
import { readCsvAccounts } from '~server/cli/import-users/formats/csv'
import { readKeycloakUsers } from '~server/cli/import-users/formats/keycloak'
import { readMernUsers } from '~server/cli/import-users/formats/mern-ums'
import { retireUnusedPasswordKinds } from '~server/data/import-users/password-kinds'
import { importAccounts } from '~server/use-cases/import-users/import-accounts'
import { setBackSearchIndexesOfAKilledImport, withSearchIndexesDeferred } from '~server/use-cases/import-users/search-indexes'
import type { ImportFormat, ImportStore, LineNote } from '~server/use-cases/import-users/records'
import { csvLine, keycloakCredential, keycloakRealm, seedUserLine } from '../support/import-files'
import { type TestApp, useTestApp, uniqueEmail } from '../support/test-app'
import { activitiesOf, forgotPassword, resetLink, resetPassword, tokenOf } from './auth/helpers'

/**
 * People moved in from another system sign in with the password they had there (contract section
 * 14): the imported hash is checked with its own algorithm, then replaced by the product's Argon2id
 * in the same request, once, and the person notices nothing. A failed sign-in does the same work
 * whatever kind of account it meets (decision 0552): shown as the same checks, never as timings.
 * The command itself (files, report, second run, dry run, a run killed halfway) is tested whole in
 * tests/system/import-users.test.ts.
 */
const t = useTestApp()

const READERS = { 'mern-ums': readMernUsers, keycloak: readKeycloakUsers, csv: readCsvAccounts }

async function* chunksOf(text: string): AsyncGenerator<Buffer> {
  yield Buffer.from(text)
}

/** Imports a file's text as `npm run users:import` does, through the real use case and parsers. */
const importText = (format: ImportFormat, text: string) => importInto(t, format, text)

async function importInto(app: TestApp, format: ImportFormat, text: string, options: { batchSize?: number; concurrency?: number } = {}) {
  const notes: LineNote[] = []
  const store: ImportStore = {
    write: (work) => commitChange(app.ctx, (c) => work({ trx: c.trx, now: c.now })),
    concurrency: options.concurrency ?? 1,
  }
  const counts = await importAccounts(store, READERS[format](chunksOf(text)), {
    format,
    runId: crypto.randomUUID(),
    fileName: `test.${format}`,
    batchSize: options.batchSize ?? 50,
    onBatch: (batch) => notes.push(...batch),
  })
  return { counts, notes }
}

const storedHash = async (email: string) =>
  (await t.ctx.db.selectFrom('users').select(['id', 'password_hash']).where('email', '=', email).executeTakeFirstOrThrow()).password_hash

const NATIVE_PREFIX = '$argon2id$v=19$m=19456,t=2,p=1$'

/** Signs in with the old password: 200, the hash now the product's Argon2id, with one entry saying so. */
async function expectSignInUpgrades(email: string, password: string, scheme: string) {
  expect(await storedHash(email)).not.toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
  const wrong = await t.login(email, `${password}-not`)
  expect(wrong.statusCode, email).toBe(401)
  const first = await t.login(email, password)
  expect(first.statusCode, `${email}: ${first.body}`).toBe(200)
  expect(first.json().data.user.email).toBe(email)
  const upgraded = await storedHash(email)
  expect(upgraded.startsWith(NATIVE_PREFIX), email).toBe(true)
  expect(await t.ctx.hasher.verify(upgraded, password)).toBe(true)
  const userId = first.json().data.user.id as string
  const entries = (await activitiesOf(t, userId)).filter((entry) => entry.activity === 'Upgraded password storage')
  expect(
    entries.map((entry) => [entry.kind, entry.details]),
    email,
  ).toEqual([['security', `${scheme} → Argon2id`]])
  // The second sign-in is an ordinary one.
  expect((await t.login(email, password)).statusCode).toBe(200)
  expect(await storedHash(email)).toBe(upgraded)
}

describe('people from the seed application', () => {
  it('sign in with the password they had there (bcryptjs, cost 10), and from then on with an Argon2id hash of it', async () => {
    const email = uniqueEmail('seed')
    const { line } = seedUserLine({ name: 'Sam Seed', email, password: 'seed-app-password', cost: 10 })
    const { counts } = await importText('mern-ums', `${line}\n`)
    expect(counts).toMatchObject({ imported: 1, refused: 0 })
    await expectSignInUpgrades(email, 'seed-app-password', 'bcrypt')
  })

  it('keep a password longer than bcrypt reads: its first 72 bytes sign them in once, as there; the whole of it is kept from then on', async () => {
    const email = uniqueEmail('long')
    const password = `${'Ü'.repeat(36)}-and-more-after-72-bytes`
    const { line } = seedUserLine({ name: 'Lena Long', email, password, cost: 4 })
    await importText('mern-ums', line)
    expect((await t.login(email, password)).statusCode).toBe(200)
    // Now the product's own hash holds every character: the tail matters again.
    expect((await t.login(email, 'Ü'.repeat(36))).statusCode).toBe(401)
    expect((await t.login(email, password)).statusCode).toBe(200)
  })

  it('upgrade once when two sign-ins arrive at the same moment: both succeed, one replaces the hash', async () => {
    const email = uniqueEmail('twice')
    await importText('mern-ums', seedUserLine({ name: 'Two Tabs', email, password: 'same-time-password', cost: 4 }).line)
    const [a, b] = await Promise.all([t.login(email, 'same-time-password'), t.login(email, 'same-time-password')])
    expect([a.statusCode, b.statusCode]).toEqual([200, 200])
    const userId = a.json().data.user.id as string
    const upgrades = (await activitiesOf(t, userId)).filter((entry) => entry.activity === 'Upgraded password storage')
    expect(upgrades).toHaveLength(1)
    expect((await storedHash(email)).startsWith(NATIVE_PREFIX)).toBe(true)
    expect((await t.login(email, 'same-time-password')).statusCode).toBe(200)
  })

  it('keep a password they changed meanwhile: a late upgrade never writes over a newer hash', async () => {
    const email = uniqueEmail('changed')
    await importText('mern-ums', seedUserLine({ name: 'Carla Change', email, password: 'old-seed-password', cost: 4 }).line)
    const imported = await storedHash(email)
    const newer = await t.ctx.hasher.hash('Brand-New-Password-9!')
    await t.ctx.db.updateTable('users').set({ password_hash: newer }).where('email', '=', email).execute()
    // A sign-in that had checked the imported hash before the change now tries to replace it.
    const { replacePasswordHashIfUnchanged } = await import('~server/data/import-users/password-upgrade')
    const userId = (await t.ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id
    expect(await replacePasswordHashIfUnchanged(t.ctx.db, userId, imported, await t.ctx.hasher.hash('old-seed-password'))).toBe(false)
    expect(await storedHash(email)).toBe(newer)
  })
})

describe('people from Keycloak', () => {
  const ALGORITHMS = [
    ['pbkdf2-sha256', 'pbkdf2-sha256', {}],
    ['pbkdf2-sha256 with the 256-bit key of Keycloak 24 and later', 'pbkdf2-sha256', { keyBits: 256, iterations: 30_000 }],
    ['pbkdf2-sha512', 'pbkdf2-sha512', { iterations: 20_000 }],
    ['pbkdf2 (SHA-1)', 'pbkdf2', { iterations: 20_000 }],
    ['argon2', 'argon2', {}],
  ] as const

  it.each(ALGORITHMS)('sign in with the password Keycloak kept as %s, then with Argon2id', async (_, algorithm, options) => {
    const email = uniqueEmail('kc')
    const password = 'Keycloak pässword 7'
    const realm = keycloakRealm([{ username: 'kc-person', email, firstName: 'Kim', lastName: 'Cloak', credentials: [keycloakCredential(password, algorithm, options)] }])
    const { counts, notes } = await importText('keycloak', realm)
    expect(notes).toEqual([])
    expect(counts).toMatchObject({ imported: 1 })
    const scheme = algorithm === 'argon2' ? 'argon2id' : algorithm === 'pbkdf2' ? 'pbkdf2-sha1' : algorithm
    await expectSignInUpgrades(email, password, scheme)
  })
})

describe('people from a CSV file, their hashes in modular crypt or PHC form as the reference libraries write them', () => {
  const passlibBase64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '').replace(/\+/g, '.')
  const CASES: [label: string, scheme: string, make: (password: string) => Promise<string>][] = [
    ['bcrypt $2a$ (bcryptjs 2)', 'bcrypt', async (password) => bcryptjs.hashSync(password, 5).replace(/^\$2b\$/, '$2a$')],
    ['bcrypt $2y$ (PHP)', 'bcrypt', async (password) => bcryptjs.hashSync(password, 5).replace(/^\$2b\$/, '$2y$')],
    ['PBKDF2-SHA256 from @phc/pbkdf2', 'pbkdf2-sha256', (password) => pbkdf2Phc.hash(password, { iterations: 10_000, digest: 'sha256' })],
    ['PBKDF2-SHA512 from @phc/pbkdf2', 'pbkdf2-sha512', (password) => pbkdf2Phc.hash(password, { iterations: 5_000 })],
    [
      'PBKDF2-SHA256 in passlib\'s form ("$pbkdf2-sha256$29000$…", its base64 with "." for "+")',
      'pbkdf2-sha256',
      async (password) => {
        const salt = crypto.randomBytes(16)
        return `$pbkdf2-sha256$29000$${passlibBase64(salt)}$${passlibBase64(crypto.pbkdf2Sync(password, salt, 29_000, 32, 'sha256'))}`
      },
    ],
    [
      'scrypt in PHC form (@phc/format)',
      'scrypt',
      async (password) => {
        const salt = crypto.randomBytes(16)
        return phc.serialize({ id: 'scrypt', params: { ln: 14, r: 8, p: 1 }, salt, hash: crypto.scryptSync(password, salt, 32, { N: 2 ** 14, r: 8, p: 1 }) })
      },
    ],
    ['Argon2id of other parameters (@node-rs/argon2)', 'argon2id', (password) => argon2Hash(password, { algorithm: 2, memoryCost: 65_536, timeCost: 3, parallelism: 4 })],
    ['Argon2i (@node-rs/argon2)', 'argon2i', (password) => argon2Hash(password, { algorithm: 1, memoryCost: 4096, timeCost: 3, parallelism: 1 })],
  ]

  it.each(CASES)('sign in with %s, then with Argon2id', async (_, scheme, make) => {
    const email = uniqueEmail('csv')
    const password = 'csv-Passw0rd!'
    const text = ['email,name,role,status,emailVerified,passwordHash', csvLine([email, 'Casey Csv', 'developer', 'active', 'true', await make(password)])].join('\n')
    const { counts, notes } = await importText('csv', text)
    expect(notes).toEqual([])
    expect(counts).toMatchObject({ imported: 1 })
    await expectSignInUpgrades(email, password, scheme)
  })

  it('takes passlib\'s own example scrypt hash of "password" (from passlib\'s documentation)', async () => {
    const email = uniqueEmail('passlib')
    const hash = '$scrypt$ln=16,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4CbdRSCdEBsjjJxD+iCs5E'
    const { notes } = await importText('csv', `email,passwordHash,emailVerified\n${csvLine([email, hash, 'true'])}\n`)
    expect(notes).toEqual([])
    await expectSignInUpgrades(email, 'password', 'scrypt')
  })
})

describe('an account imported without a password', () => {
  it('cannot be signed in to with any password, and its owner gets in through "Forgot password"', async () => {
    const email = uniqueEmail('nohash')
    await importText('csv', `email,name,emailVerified\n${email},Noor Nohash,true\n`)
    for (const attempt of ['anything', '!no-password', 'Wrong-Password-1!']) expect((await t.login(email, attempt)).statusCode).toBe(401)
    await forgotPassword(t, email)
    await t.deliverMail()
    const token = tokenOf(await resetLink(t, email))
    expect((await resetPassword(t, token, 'Chosen-After-Import-4!')).statusCode).toBe(200)
    expect((await t.login(email, 'Chosen-After-Import-4!')).statusCode).toBe(200)
  })
})

describe('a failed sign-in', () => {
  // An application of its own: only the kinds of hash its accounts hold.
  const t = useTestApp()
  const importText = (format: ImportFormat, text: string) => importInto(t, format, text)

  /** The checks made since the last call, by kind of hash, from the metrics. */
  async function checksSince(before: Map<string, number>): Promise<Map<string, number>> {
    const metric = t.ctx.metrics.registry.getSingleMetric('accounts_password_checks_total')!
    const values = (await metric.get()).values
    const now = new Map(values.map((v) => [String(v.labels.kind), v.value]))
    const made = new Map([...now].map(([kind, n]) => [kind, n - (before.get(kind) ?? 0)]).filter(([, n]) => (n as number) > 0) as [string, number][])
    before.clear()
    for (const [kind, n] of now) before.set(kind, n)
    return new Map([...made].sort())
  }

  it('does the same checks whatever it meets: an unknown address, a native account, imported bcrypt, PBKDF2 and Argon2 accounts, one without a password', async () => {
    const native = await t.createUser()
    const bcryptEmail = uniqueEmail('pad-bcrypt')
    const pbkdf2Email = uniqueEmail('pad-pbkdf2')
    const argonEmail = uniqueEmail('pad-argon')
    const noneEmail = uniqueEmail('pad-none')
    await importText('mern-ums', seedUserLine({ name: 'Pad Bcrypt', email: bcryptEmail, password: 'pad-password-1', cost: 6 }).line)
    await importText(
      'keycloak',
      keycloakRealm([{ username: 'pad', email: pbkdf2Email, credentials: [keycloakCredential('pad-password-2', 'pbkdf2-sha256', { iterations: 1000 })] }]),
    )
    const argon = await argon2Hash('pad-password-3', { algorithm: 2, memoryCost: 8192, timeCost: 1, parallelism: 1 })
    await importText('csv', `email,passwordHash,emailVerified\n${csvLine([argonEmail, argon, 'true'])}\n${noneEmail},,true\n`)

    const counter = new Map<string, number>()
    await checksSince(counter)
    const seen: [string, Map<string, number>][] = []
    for (const [label, email] of [
      ['an unknown address', uniqueEmail('nobody')],
      ['a native account', native.email],
      ['an imported bcrypt account', bcryptEmail],
      ['an imported PBKDF2 account', pbkdf2Email],
      ['an imported Argon2 account', argonEmail],
      ['an account without a password', noneEmail],
    ] as const) {
      const answer = await t.login(email, 'Wrong-Password-1!')
      expect(answer.statusCode, label).toBe(401)
      expect(answer.json(), label).toMatchObject({ message: 'Invalid credentials', code: 'INVALID_CREDENTIALS' })
      seen.push([label, await checksSince(counter)])
    }
    const kinds = [...seen[0]![1].keys()]
    // One check of each kind some account holds, the product's own included.
    expect(kinds).toEqual(expect.arrayContaining([NATIVE_KIND, 'bcrypt cost=6', 'pbkdf2-sha256 i=1000 l=64', 'argon2id v=19 m=8192 t=1 p=1']))
    for (const [label, checks] of seen) {
      expect(Object.fromEntries(checks), label).toEqual(Object.fromEntries(seen[0]![1]))
      expect(
        [...checks.values()].every((n) => n === 1),
        label,
      ).toBe(true)
    }
    // A right password is checked once, against the account's own hash (and the hash then replaced).
    await checksSince(counter)
    expect((await t.login(native.email, native.password)).statusCode).toBe(200)
    expect(Object.fromEntries(await checksSince(counter))).toEqual({ [NATIVE_KIND]: 1 })
  })

  it('stops doing the work of a kind once no account holds it (the hourly housekeeping retires it)', async () => {
    const email = uniqueEmail('retire')
    await importText('mern-ums', seedUserLine({ name: 'Rita Retire', email, password: 'retire-password', cost: 7 }).line)
    const kinds = async () => (await t.ctx.db.selectFrom('imported_password_kinds').select('kind').execute()).map((row) => row.kind)
    expect(await kinds()).toContain('bcrypt cost=7')
    expect(await retireUnusedPasswordKinds(t.ctx.db)).not.toContain('bcrypt cost=7')
    expect((await t.login(email, 'retire-password')).statusCode).toBe(200)
    expect(await retireUnusedPasswordKinds(t.ctx.db)).toContain('bcrypt cost=7')
    expect(await kinds()).not.toContain('bcrypt cost=7')
  })
})

describe('batches written two at a time (PostgreSQL)', () => {
  it('find the duplicates one at a time would: across the batch boundary, by address and by source id', async () => {
    const run = async (concurrency: number) => {
      const tag = `c${concurrency}-${crypto.randomBytes(3).toString('hex')}`
      const native = await t.createUser({ email: `native-${tag}@example.com` })
      const same = seedUserLine({ name: 'Same Id', email: `first-${tag}@example.com`, password: 'x', cost: 4 })
      const lines = [
        seedUserLine({ name: 'Ann One', email: `ann-${tag}@example.com`, password: 'x', cost: 4 }).line,
        seedUserLine({ name: 'Ben Two', email: `ben-${tag}@example.com`, password: 'x', cost: 4 }).line,
        same.line,
        // Second batch: Ann's address in capitals, Same Id's id again, the native account's address.
        seedUserLine({ name: 'Ann Again', email: `ANN-${tag}@example.com`, password: 'x', cost: 4 }).line,
        seedUserLine({ id: same.id, name: 'Same Id Again', email: `second-${tag}@example.com`, password: 'x', cost: 4 }).line,
        seedUserLine({ name: 'Native Twin', email: native.email, password: 'x', cost: 4 }).line,
        // Third batch: Ben's address again, and a new one.
        seedUserLine({ name: 'Ben Again', email: `Ben-${tag}@Example.com`, password: 'x', cost: 4 }).line,
        seedUserLine({ name: 'Cy Three', email: `cy-${tag}@example.com`, password: 'x', cost: 4 }).line,
      ]
      return importInto(t, 'mern-ums', lines.join('\n'), { batchSize: 3, concurrency })
    }
    const one = await run(1)
    const two = await run(2)
    const expected = [
      [4, 'refused', 'the same address as line 1 (addresses are compared in their normal form, without regard to case)'],
      [5, 'refused', 'the same mern-ums id as line 3'],
      [7, 'refused', 'the same address as line 2 (addresses are compared in their normal form, without regard to case)'],
    ]
    expect(one.notes.map((n) => [n.position, n.outcome, n.reason])).toEqual(expected)
    expect(two.notes.map((n) => [n.position, n.outcome, n.reason])).toEqual(expected)
    expect(one.counts).toEqual({ read: 8, imported: 4, alreadyThere: 1, skipped: 0, refused: 3 })
    expect(two.counts).toEqual(one.counts)
  })
})

describe("imported accounts' ids (decision 0557)", () => {
  it('are UUIDs of version 7, made at the import, that follow the order of the file across its batches', async () => {
    const tag = crypto.randomBytes(3).toString('hex')
    const emails = Array.from({ length: 7 }, (_, i) => `order${i}-${tag}@example.com`)
    const before = Date.now()
    await importInto(t, 'mern-ums', emails.map((email, i) => seedUserLine({ name: `Order ${i}`, email, password: 'x', cost: 4 }).line).join('\n'), { batchSize: 3 })
    const rows = await t.ctx.db.selectFrom('users').select(['id', 'email']).where('email', 'in', emails).orderBy('id').execute()
    expect(rows.map((row) => row.email)).toEqual(emails)
    for (const { id } of rows) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16)
      expect(ms).toBeGreaterThanOrEqual(before)
      expect(ms).toBeLessThanOrEqual(Date.now())
    }
  })
})

describe('the import refuses, with the line and the reason', () => {
  it('hashes it cannot check, and parameters past its bounds; the other lines are imported', async () => {
    const good = uniqueEmail('good')
    const lines = [
      'email,passwordHash',
      `${uniqueEmail('md5')},$1$saltsalt$2vnaRpHa6Jxjz5n83ok8Z0`,
      `${uniqueEmail('sha512crypt')},$6$rounds=5000$salt$abc`,
      `${uniqueEmail('django')},pbkdf2_sha256$260000$salt$hash`,
      `${uniqueEmail('costly')},${bcryptjs.hashSync('x', 4).replace('$04$', '$31$')}`,
      csvLine([uniqueEmail('scrypt-huge'), '$scrypt$ln=24,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA']),
      `${good},${bcryptjs.hashSync('fine', 4)}`,
    ]
    const { counts, notes } = await importText('csv', lines.join('\n'))
    expect(counts).toMatchObject({ imported: 1, refused: 5 })
    expect(notes.map((note) => [note.position, note.outcome, note.reason])).toEqual([
      [2, 'refused', 'password hash: unknown password hash format'],
      [3, 'refused', 'password hash: unknown password hash format'],
      [4, 'refused', 'password hash: unknown password hash format'],
      [5, 'refused', 'password hash: bcrypt cost 31 is outside 4 to 14'],
      [6, 'refused', 'password hash: scrypt parameters ln=24, r=8, p=1 are outside ln 1 to 20, r 1 to 32, p 1 to 16'],
    ])
    expect(await t.ctx.db.selectFrom('users').select('email').where('email', '=', good).executeTakeFirst()).toBeDefined()
  })
})

describe('the search indexes while an import runs (decision 0555)', () => {
  const SEARCH_INDEXES = ['activities_search_weekly', 'users_search_grams', 'users_search_trgm']
  const pendingLists = async () => {
    const { rows } = await sql<{ name: string; options: string[] | null }>`
      SELECT relname AS name, reloptions AS options FROM pg_class WHERE relname IN ('activities_search_weekly', 'users_search_grams', 'users_search_trgm') ORDER BY relname
    `.execute(t.ctx.db)
    return rows.map((row) => [row.name, row.options?.includes('fastupdate=on') === true])
  }
  /** Pages a list still held (0: empty): emptying an empty list writes nothing. */
  const leftInLists = async () => {
    let pages = 0
    for (const index of SEARCH_INDEXES) pages += Number((await sql<{ n: number }>`SELECT gin_clean_pending_list(${index}::regclass) AS n`.execute(t.ctx.db)).rows[0]!.n)
    return pages
  }
  /** The accounts and "Imported from" entries the indexes find for a word (the planner made to use them). */
  const foundThroughIndexes = (word: string) =>
    t.ctx.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx)
      await sql`SET LOCAL enable_indexscan = off`.execute(trx)
      const users = await sql<{ email: string }>`SELECT email FROM users WHERE search_text LIKE ${`%${word}%`} ORDER BY email`.execute(trx)
      const entries = await sql<{ n: string }>`SELECT count(*) AS n FROM activities WHERE search_text LIKE ${`%${word}%`}`.execute(trx)
      return { users: users.rows.map((row) => row.email), entries: Number(entries.rows[0]!.n) }
    })
  const say = (text: string) => said.push(text)
  const said: string[] = []

  it('keep a pending list during the import and none after it; every imported account and entry is found through them', async () => {
    const word = `zq${crypto.randomBytes(4).toString('hex')}`
    const lines = [1, 2, 3].map((n) => seedUserLine({ name: `Idx ${word} ${n}`, email: `${word}-${n}@example.com`, password: 'x', cost: 4 }).line)
    let during: unknown[] = []
    const { counts } = await withSearchIndexesDeferred(
      t.ctx,
      async () => {
        during = await pendingLists()
        const imported = await importText('mern-ums', lines.join('\n'))
        // Found while they sit in the pending lists too.
        expect((await foundThroughIndexes(word)).users).toHaveLength(3)
        return imported
      },
      say,
    )
    expect(counts).toMatchObject({ imported: 3 })
    expect(during).toEqual(SEARCH_INDEXES.map((name) => [name, true]))
    expect(await pendingLists()).toEqual(SEARCH_INDEXES.map((name) => [name, false]))
    expect(await leftInLists()).toBe(0)
    expect(await foundThroughIndexes(word)).toEqual({ users: [1, 2, 3].map((n) => `${word}-${n}@example.com`), entries: 3 })
    expect(said).toEqual([])
  })

  // PGlite serves one connection at a time: nothing else can hold an index there while an import runs.
  it.skipIf(!process.env.TEST_DATABASE_URL)('leave an index that a transaction holds as it is, and say so; the import goes on', async () => {
    said.length = 0
    // A transaction that has read the accounts holds their indexes until it ends.
    const reader = await t.ctx.db.startTransaction().execute()
    await sql`SELECT count(*) FROM users WHERE search_text LIKE '%nobody-at-all%'`.execute(reader)
    let during: unknown[] = []
    const { counts } = await withSearchIndexesDeferred(
      t.ctx,
      async () => {
        during = await pendingLists()
        await reader.commit().execute()
        return importText('mern-ums', seedUserLine({ name: 'Ida Inuse', email: uniqueEmail('inuse'), password: 'x', cost: 4 }).line)
      },
      say,
    )
    expect(counts).toMatchObject({ imported: 1 })
    expect(during).toEqual([
      ['activities_search_weekly', true],
      ['users_search_grams', false],
      ['users_search_trgm', false],
    ])
    expect(said).toEqual(['The search indexes users_search_grams, users_search_trgm stayed as they were (in use): the import is slower.'])
    expect(await pendingLists()).toEqual(SEARCH_INDEXES.map((name) => [name, false]))
    expect(await leftInLists()).toBe(0)
  })

  it('are set back when the import fails, and when an earlier import was killed before setting them back', async () => {
    // As a killed run leaves them.
    for (const index of SEARCH_INDEXES) await sql`ALTER INDEX ${sql.id(index)} SET (fastupdate = on)`.execute(t.ctx.db)
    const failure = withSearchIndexesDeferred(
      t.ctx,
      async () => {
        await importText('mern-ums', seedUserLine({ name: 'Fay Fails', email: uniqueEmail('fails'), password: 'x', cost: 4 }).line)
        throw new Error('the file went away')
      },
      say,
    )
    await expect(failure).rejects.toThrow('the file went away')
    expect(await pendingLists()).toEqual(SEARCH_INDEXES.map((name) => [name, false]))
    expect(await leftInLists()).toBe(0)
  })

  it('are set back by the hourly housekeeping when a killed import left them, and not while an import runs', async () => {
    expect(await setBackSearchIndexesOfAKilledImport(t.ctx)).toEqual([])
    // As a killed run leaves them.
    for (const index of SEARCH_INDEXES) await sql`ALTER INDEX ${sql.id(index)} SET (fastupdate = on)`.execute(t.ctx.db)
    await importText('mern-ums', seedUserLine({ name: 'Kim Killed', email: uniqueEmail('killed'), password: 'x', cost: 4 }).line)
    if (t.ctx.dbKind === 'postgres') {
      // An import running beside the server (PostgreSQL only) holds the lock: its indexes stay as they are.
      await withSearchIndexesDeferred(t.ctx, async () => expect(await setBackSearchIndexesOfAKilledImport(t.ctx)).toEqual([]), say)
      for (const index of SEARCH_INDEXES) await sql`ALTER INDEX ${sql.id(index)} SET (fastupdate = on)`.execute(t.ctx.db)
    }
    expect(await pendingLists()).toEqual(SEARCH_INDEXES.map((name) => [name, true]))
    expect(await setBackSearchIndexesOfAKilledImport(t.ctx)).toEqual(SEARCH_INDEXES)
    expect(await pendingLists()).toEqual(SEARCH_INDEXES.map((name) => [name, false]))
    expect(await leftInLists()).toBe(0)
  })
})
