import fs from 'node:fs'
import path from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { type AccountExport, accountExportJsonSchema, accountExportSchema } from '~shared/schemas/own-data'
import { EXPORT_BATCH } from '~server/data/own-data/account-data'
import { useTestApp } from '../../support/test-app'
import { as, countWhere, expectFailure } from '../helpers/requests'
import { quickSignIn } from '../helpers/users'
import { FIREFOX_ON_WINDOWS, type RichAccount, richAccount, secretsOf } from './rich-account'

/**
 * "Download your data" (contract section 15): an account that uses everything the product offers
 * downloads one JSON document holding all of it, in the shape docs/account-export.schema.json
 * publishes, and not one of the secrets its setup produced, in any spelling.
 */
const SCHEMA_FILE = path.resolve(import.meta.dirname, '../../../docs/account-export.schema.json')

const t = useTestApp()
let account: RichAccount
let answer: Awaited<ReturnType<typeof t.request>>
let document: AccountExport

beforeAll(async () => {
  account = await richAccount(t)
  t.clock.advance(60)
  answer = await as(t, account.person).get('/api/auth/export')
  document = JSON.parse(answer.body) as AccountExport
})

describe('downloading one’s own data', () => {
  it('is a JSON attachment named for the day, never cached', () => {
    expect(answer.statusCode, answer.body.slice(0, 300)).toBe(200)
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(answer.headers['content-disposition']).toBe('attachment; filename="accounts-export-2026-06-01.json"')
    expect(answer.headers['cache-control']).toBe('no-store')
  })

  it('has exactly the documented shape: the shared schema, and the JSON Schema published in docs/', () => {
    expect(Object.keys(document)).toEqual(['exportedAt', 'user', 'picture', 'sessions', 'activity', 'identities', 'passkeys', 'twoFactor', 'connectedApps'])
    expect(accountExportSchema.safeParse(document).error?.issues ?? []).toEqual([])
    const published = JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')) as object
    expect(published, 'docs/account-export.schema.json is out of date: npx tsx scripts/account-export-schema.ts').toEqual(accountExportJsonSchema())
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(published)
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true)
    // The published schema does refuse a document with a secret added.
    const withHash = { ...document, user: { ...document.user, passwordHash: '$argon2id$…' } }
    expect(validate(withHash)).toBe(false)
  })

  it('holds the profile, as it is now', () => {
    const { person } = account
    expect(document.exportedAt).toBe(t.clock.now().toISOString())
    expect(document.user).toEqual({
      id: person.id,
      name: 'Olivia Renamed',
      email: person.email,
      phone: '+33 6 12 34 56 78',
      role: 'CLIENT',
      status: 'ACTIVE',
      emailVerified: true,
      profilePicture: expect.stringMatching(/^\/api\/users\/pictures\/[\w-]{22}\.webp$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      lastSignInAt: expect.any(String),
      mfaEnabled: true,
    })
  })

  it('holds the picture itself, the bytes the picture’s address serves', async () => {
    const served = await t.request('GET', document.user.profilePicture!)
    expect(served.statusCode).toBe(200)
    expect(document.picture).toBe(`data:image/webp;base64,${served.rawPayload.toString('base64')}`)
  })

  it('holds every session on record: this one, the other device, and the one signed out, newest first', () => {
    expect(document.sessions).toHaveLength(3)
    const current = document.sessions.filter((session) => session.current)
    expect(current).toHaveLength(1)
    const firefox = document.sessions.find((session) => session.userAgent === FIREFOX_ON_WINDOWS)
    expect(firefox).toMatchObject({ browser: 'Firefox 133', os: 'Windows', ipAddress: '127.0.0.1', endedAt: null, endedReason: null, signedInWith: ['pwd'] })
    const ended = document.sessions.filter((session) => session.endedAt !== null)
    expect(ended).toHaveLength(1)
    expect(ended[0]!.endedReason).toEqual(expect.any(String))
    const created = document.sessions.map((session) => session.createdAt)
    expect(created).toEqual([...created].sort().reverse())
  })

  it('holds every activity entry about the account, newest first, with who acted and what changed when it was an administrator', () => {
    const texts = document.activity.map((entry) => entry.activity)
    expect(texts[0]).toBe('Downloaded account data')
    expect(texts).toEqual(
      expect.arrayContaining(['Logged in', 'Logged out', 'Updated profile picture', 'Enabled two-factor authentication', 'Added a passkey', 'Allowed Team Wiki']),
    )
    const edit = document.activity.find((entry) => entry.actor !== null)
    expect(edit).toMatchObject({ actor: { id: account.admin.id, name: 'Ada Admin' }, changes: [{ field: 'name', from: 'Olivia Owner', to: 'Olivia Renamed' }] })
    const times = document.activity.map((entry) => entry.createdAt)
    expect(times).toEqual([...times].sort().reverse())
    expect(new Set(document.activity.map((entry) => entry.id)).size).toBe(document.activity.length)
  })

  it('holds the passkeys by name and date, two-factor’s state, and the apps allowed with what each may see', () => {
    expect(document.passkeys).toEqual([{ id: expect.any(String), name: 'Work laptop', createdAt: expect.any(String), lastUsedAt: null }])
    expect(document.twoFactor).toEqual({ totp: true, enabledAt: expect.any(String), recoveryCodesLeft: 10 })
    expect(document.connectedApps).toEqual([
      {
        id: account.application.id,
        name: 'Team Wiki',
        scopes: ['openid', 'profile', 'email', 'offline_access'],
        grantedAt: expect.any(String),
        lastUsedAt: expect.any(String),
      },
    ])
    expect(document.identities).toEqual([])
  })

  it('holds no secret of any kind, in any spelling: hashes, tokens, codes, keys, credential ids', async () => {
    const secrets = await secretsOf(t, account)
    expect(secrets.length).toBeGreaterThan(30)
    for (const [label, secret] of secrets) {
      expect(secret.length, label).toBeGreaterThanOrEqual(16)
      expect(answer.body.includes(secret), `the export holds ${label}`).toBe(false)
    }
  })

  it('writes “Downloaded account data” with the address, once per download', async () => {
    const before = await countWhere(t, 'activities', { user_id: account.person.id, activity: 'Downloaded account data' })
    expect((await as(t, account.person).get('/api/auth/export')).statusCode).toBe(200)
    expect(await countWhere(t, 'activities', { user_id: account.person.id, activity: 'Downloaded account data', ip_address: '127.0.0.1' })).toBe(before + 1)
  })

  it('is indented for a person to read', () => {
    expect(answer.body.startsWith('{\n  "exportedAt": ')).toBe(true)
    expect(answer.body).toContain('\n  "activity": [\n    {\n      "id": ')
    expect(answer.body.endsWith('\n}\n')).toBe(true)
  })
})

describe('an account with a long history', () => {
  it('gets every entry and every session, in order, across many batches', async () => {
    const person = await quickSignIn(t, { name: 'Long History' })
    const entries = EXPORT_BATCH * 2 + 345
    const sessions = EXPORT_BATCH + 7
    // Entries a microsecond apart, some at the very same moment: the order is (time, id), exact to the microsecond.
    await sql`
      INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
      SELECT ${person.id}, ${person.id}, 'logged in', 'Logged in', 'entry ' || n, '192.0.2.1',
        timestamptz '2026-01-01 00:00:00+00' + (n / 3) * interval '1 microsecond'
      FROM generate_series(1, ${entries}) AS n`.execute(t.ctx.db)
    await sql`
      INSERT INTO sessions (user_id, created_at, last_refreshed_at, idle_expires_at, expires_at, revoked_at, revoked_reason)
      SELECT ${person.id}, timestamptz '2026-01-01 00:00:00+00' + n * interval '1 microsecond', now(), now(), now(), now(), 'signed out'
      FROM generate_series(1, ${sessions}) AS n`.execute(t.ctx.db)
    const answer = await as(t, person).get('/api/auth/export')
    expect(answer.statusCode).toBe(200)
    const exported = JSON.parse(answer.body) as AccountExport
    expect(accountExportSchema.safeParse(exported).success).toBe(true)
    const seeded = exported.activity.filter((entry) => entry.details?.startsWith('entry '))
    expect(seeded).toHaveLength(entries)
    expect(seeded.map((entry) => Number(entry.details!.slice(6)))).toEqual(Array.from({ length: entries }, (_, i) => entries - i))
    expect(exported.sessions).toHaveLength(sessions + 1)
    expect(new Set(exported.sessions.map((session) => session.id)).size).toBe(sessions + 1)
    // Writing 2,345 entries with every index of the log took 38 s on PGlite in a full run on a busy machine.
  }, 120_000)
})

describe('who may download', () => {
  it('is for the signed-in owner only: no token, or the token of a session signed out, is a 401', async () => {
    expectFailure(await t.request('GET', '/api/auth/export'), 401, undefined, 'AUTH_REQUIRED')
    const person = await quickSignIn(t)
    expect((await t.request('POST', '/api/auth/logout', { token: person.accessToken, csrf: person.csrfToken })).statusCode).toBe(200)
    expectFailure(await as(t, person).get('/api/auth/export'), 401, undefined, 'SESSION_ENDED')
    expect(await countWhere(t, 'activities', { user_id: person.id, activity: 'Downloaded account data' })).toBe(0)
  })

  it('gives each person their own data only', async () => {
    const other = await quickSignIn(t, { name: 'Someone Else' })
    const theirs = JSON.parse((await as(t, other).get('/api/auth/export')).body) as AccountExport
    expect(theirs.user.id).toBe(other.id)
    expect(theirs.connectedApps).toEqual([])
    expect(theirs.passkeys).toEqual([])
    expect(theirs.picture).toBeNull()
    expect(JSON.stringify(theirs)).not.toContain(account.person.email)
  })
})
