import { parse } from 'csv-parse/sync'
import { beforeAll, describe, expect, it } from 'vitest'
import { copyFields, EXPORT_BATCH, isoTime, withValues } from '~server/data/exports/export-rows'
import { exportUsersCsv } from '~server/use-cases/exports/export-csv'
import { userExportQuerySchema } from '~shared/schemas/lists'
import { type SignedIn, useTestApp } from '../support/test-app'
import { as, expectFailure, expectSuccess } from './helpers/requests'
import pg from 'pg'
import { recordActivity } from '~server/data/activity/activities'
import { quickUser } from './helpers/users'

const USER_HEADER = ['id', 'name', 'email', 'phone', 'role', 'status', 'emailVerified', 'createdAt', 'updatedAt', 'lastSignInAt']
const ACTIVITY_HEADER = ['id', 'createdAt', 'activity', 'details', 'ipAddress', 'userId', 'userName', 'userEmail', 'userRole', 'actorType', 'actorId', 'actorName']

/**
 * The CSV exports (contract section 7): the file's form, read back by a CSV parser; the same
 * filters and order as the lists; the activity entry each export writes.
 */
describe('CSV exports', () => {
  const t = useTestApp()
  let admin: SignedIn
  const stamp = `exp${Date.now()}`
  const awkward: { id: string; name: string; email: string }[] = []

  beforeAll(async () => {
    admin = await t.signIn({ role: 'ADMIN', name: 'Export Admin' })
    const names = [
      '=HYPERLINK("http://evil.example")',
      'Smith, "Jo"',
      'Line\nBreak',
      'Zoë Ångström-Łukasz',
      '李小龍 Bruce',
      '+Plus Sign',
      '-Minus Sign',
      '@At Sign',
      'Tab\tand back\\slash \\N',
    ]
    for (const name of names) {
      t.clock.advance(1)
      awkward.push({ name, ...(await quickUser(t, { name, email: `${awkward.length}.${stamp}@example.com` })) })
    }
    await t.ctx.db.updateTable('users').set({ phone: '=1+2', last_sign_in_at: t.clock.now() }).where('id', '=', awkward[0]!.id).execute()
  })

  const download = async (url: string) => {
    const response = await as(t, admin).get(url)
    expect(response.statusCode, response.body).toBe(200)
    return response
  }
  const rows = (body: string) => parse(body, { bom: true, relax_column_count: false }) as string[][]

  it('answers CSV with a byte-order mark, a header row, CRLF lines and a dated file name', async () => {
    const response = await download(`/api/admin/users/export?search=${stamp}`)
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(response.headers['content-disposition']).toBe(`attachment; filename="users-${t.clock.now().toISOString().slice(0, 10)}.csv"`)
    expect(response.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]))
    expect(response.body.replace(/^\uFEFF/, '').startsWith(`${USER_HEADER.join(',')}\r\n`)).toBe(true)
    const [header, ...data] = rows(response.body)
    expect(header).toEqual(USER_HEADER)
    expect(data).toHaveLength(awkward.length)
  })

  it('keeps quotes, commas, newlines and non-Latin letters intact, and defuses formulas', async () => {
    const { body } = await download(`/api/admin/users/export?search=${stamp}&sort=createdAt&order=asc`)
    // As RFC 4180 writes them: quoted, quotes doubled, the line break inside the quotes.
    expect(body).toContain(`,"Smith, ""Jo""",`)
    expect(body).toContain(`,"Line\nBreak",`)
    expect(body).toContain(`,"'=HYPERLINK(""http://evil.example"")",`)
    const [, ...data] = rows(body)
    const byId = new Map(data.map((row) => [row[0], row]))
    const cell = (i: number, column: string) => byId.get(awkward[i]!.id)![USER_HEADER.indexOf(column)]
    expect(cell(0, 'name')).toBe(`'=HYPERLINK("http://evil.example")`)
    expect(cell(0, 'phone')).toBe(`'=1+2`)
    expect(cell(1, 'name')).toBe('Smith, "Jo"')
    expect(cell(2, 'name')).toBe('Line\nBreak')
    expect(cell(3, 'name')).toBe('Zoë Ångström-Łukasz')
    expect(cell(4, 'name')).toBe('李小龍 Bruce')
    expect(cell(5, 'name')).toBe(`'+Plus Sign`)
    expect(cell(6, 'name')).toBe(`'-Minus Sign`)
    expect(cell(7, 'name')).toBe(`'@At Sign`)
    // COPY's text format escapes these on PostgreSQL; they come out as they went in.
    expect(cell(8, 'name')).toBe('Tab\tand back\\slash \\N')
    const first = byId.get(awkward[0]!.id)!
    expect(first).toEqual([
      awkward[0]!.id,
      `'=HYPERLINK("http://evil.example")`,
      awkward[0]!.email,
      `'=1+2`,
      'CLIENT',
      'ACTIVE',
      'true',
      expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      t.clock.now().toISOString(),
    ])
    expect(cell(1, 'lastSignInAt')).toBe('')
    expect(cell(1, 'phone')).toBe('')
  })

  it('honours the filters and the order of the list', async () => {
    const listed = expectSuccess(await as(t, admin).get(`/api/admin/users?search=${stamp}&sort=name&order=desc&limit=100`)).data.users as { id: string }[]
    const [, ...data] = rows((await download(`/api/admin/users/export?search=${stamp}&sort=name&order=desc`)).body)
    expect(data.map((row) => row[0])).toEqual(listed.map((u) => u.id))
    const [, ...signedIn] = rows((await download(`/api/admin/users/export?search=${stamp}&inactiveDays=1`)).body)
    expect(signedIn.map((row) => row[0])).not.toContain(awkward[0]!.id)
    expect(signedIn).toHaveLength(awkward.length - 1)
  })

  it('filters by a search term holding quotes and backslashes as typed', async () => {
    // A mark of its own, so that the other tests' searches for the stamp do not find this person.
    const mark = `odd${Date.now().toString(36)}`
    const odd = await quickUser(t, { name: `O'Brien \\ ${mark}`, email: `obrien.${mark}@example.com` })
    for (const term of [`O'Brien \\ ${mark}`, `'Brien \\`]) {
      const [, ...data] = rows((await download(`/api/admin/users/export?search=${encodeURIComponent(term)}`)).body)
      expect(data.map((row) => row[0])).toContain(odd.id)
      for (const row of data) expect(row[USER_HEADER.indexOf('name')]).toContain(`'Brien \\`)
    }
    await recordActivity(t.ctx.db, { userId: odd.id, kind: 'updated', activity: 'Updated profile', ip: null, at: t.clock.now() })
    const [, ...entries] = rows((await download(`/api/admin/activity-logs/export?search=${encodeURIComponent(`O'Brien \\ ${mark}`)}&activity=updated`)).body)
    expect(entries.map((entry) => entry[ACTIVITY_HEADER.indexOf('userId')])).toEqual([odd.id])
  })

  it('answers a header row alone when nothing matches', async () => {
    const response = await download('/api/admin/users/export?search=nobody-matches-this-zzz&mfa=true')
    expect(response.body).toBe(`\uFEFF${USER_HEADER.join(',')}\r\n`)
    const logs = await download('/api/admin/activity-logs/export?search=no-entry-says-this-qqq')
    expect(logs.body).toBe(`\uFEFF${ACTIVITY_HEADER.join(',')}\r\n`)
  })

  it('reads past one batch, in order, every row once, with any sort', async () => {
    const many = EXPORT_BATCH + 7
    const bulk = `bulk${stamp}`
    const now = t.clock.now()
    const hash = (await t.ctx.db.selectFrom('users').select('password_hash').where('id', '=', admin.id).executeTakeFirstOrThrow()).password_hash
    // Same name and time for all of them: only the id tells them apart.
    await t.ctx.db
      .insertInto('users')
      .values(Array.from({ length: many }, (_, i) => ({ name: 'Bulk Person', email: `${i}.${bulk}@example.com`, password_hash: hash, created_at: now, updated_at: now })))
      .execute()
    for (const [sort, order] of [
      ['name', 'asc'],
      ['createdAt', 'desc'],
      ['email', 'desc'],
      ['lastSignInAt', 'asc'],
    ] as const) {
      const [, ...data] = rows((await download(`/api/admin/users/export?search=${bulk}&sort=${sort}&order=${order}`)).body)
      const ids = data.map((row) => row[0]!)
      expect(ids, `${sort} ${order}`).toHaveLength(many)
      expect(new Set(ids).size).toBe(many)
      if (sort !== 'email') expect(ids, `${sort} ${order}`).toEqual([...ids].sort((a, b) => (order === 'asc' ? (a < b ? -1 : 1) : a < b ? 1 : -1)))
      else
        expect(data.map((row) => row[2])).toEqual(
          data
            .map((row) => row[2]!)
            .sort()
            .reverse(),
        )
    }
  })

  it('stops reading when the download stops, records it, and leaves the database usable', async () => {
    // More than three batches: on PostgreSQL the next batch is being read ahead when the reader stops.
    const many = 3 * EXPORT_BATCH + 1
    const cut = `cut${stamp}`
    const now = t.clock.now()
    const hash = (await t.ctx.db.selectFrom('users').select('password_hash').where('id', '=', admin.id).executeTakeFirstOrThrow()).password_hash
    await t.ctx.db
      .insertInto('users')
      .values(Array.from({ length: many }, (_, i) => ({ name: 'Cut Person', email: `${i}.${cut}@example.com`, password_hash: hash, created_at: now, updated_at: now })))
      .execute()
    const file = exportUsersCsv(t.ctx, { actorId: admin.id, ip: '127.0.0.1' }, userExportQuerySchema.parse({ search: cut, sort: 'email', order: 'asc' }))
    // The header, then pieces of the file (at most a batch of rows each; on PostgreSQL each piece of
    // COPY's stream as it is read) until two batches' worth have come. The count takes in a piece's
    // rows once the next piece is asked for: the last piece received is not counted as sent.
    expect((await file.body.next()).value).toContain('lastSignInAt')
    let received = 0
    let counted = 0
    let last = 0
    while (received < 2 * EXPORT_BATCH) {
      const piece = String((await file.body.next()).value)
      const lines = piece.split('\r\n').length - 1
      expect(lines).toBeGreaterThan(0)
      expect(lines).toBeLessThanOrEqual(EXPORT_BATCH)
      counted += last
      last = lines
      received += lines
    }
    await file.body.return(undefined)
    expect(counted).toBeGreaterThan(0)
    expect(received).toBeLessThan(many)
    const entry = await t.ctx.db.selectFrom('activities').select('details').where('activity', '=', 'Exported users').orderBy('id', 'desc').executeTakeFirstOrThrow()
    expect(entry.details).toBe(`filters: search ${cut}, sort email, order asc; rows: ${counted} (download interrupted)`)
    // Every connection still answers, and a whole export still reads every row.
    await Promise.all(Array.from({ length: 12 }, () => t.ctx.db.selectFrom('users').select('id').limit(1).execute()))
    const [, ...data] = rows((await download(`/api/admin/users/export?search=${cut}&sort=email&order=asc`)).body)
    expect(data).toHaveLength(many)
  }, 90_000)

  it('reads COPY’s text format back (tabs, backslash escapes, NULL) and writes the filters in as quoted literals', () => {
    expect(copyFields('a\tb\\tc\t\\N\t\\\\N\tline\\nbreak\t')).toEqual(['a', 'b\tc', null, '\\N', 'line\nbreak', ''])
    const client = new pg.Client()
    const query = { sql: 'SELECT $1, $2, $3, $4, $5, $10', parameters: [`O'Brien \\`, new Date('2026-01-02T03:04:05.006Z'), 42, true, null, 'ten', 7, 8, 9, 'x'] }
    expect(withValues(client, query as never)).toBe(`SELECT  E'O''Brien \\\\', '2026-01-02T03:04:05.006Z', 42, TRUE, NULL, 'x'`)
  })

  it('writes times as the API does, from the UTC text of the database', () => {
    expect(isoTime('2026-11-24 08:05:03.123456')).toBe('2026-11-24T08:05:03.123Z')
    expect(isoTime('2026-11-24 08:05:03.1')).toBe('2026-11-24T08:05:03.100Z')
    expect(isoTime('2026-11-24 08:05:03.0199')).toBe('2026-11-24T08:05:03.019Z')
    expect(isoTime('2026-11-24 08:05:03')).toBe('2026-11-24T08:05:03.000Z')
  })

  it('exports the activity log with its filters, newest first, with the users', async () => {
    const [header, ...data] = rows((await download(`/api/admin/activity-logs/export?search=${encodeURIComponent('Export Admin')}&activity=logged%20in`)).body)
    expect(header).toEqual(ACTIVITY_HEADER)
    expect(data.length).toBeGreaterThanOrEqual(1)
    for (const row of data) {
      expect(row[2]).toBe('Logged in')
      // Their own entries: no one else acted.
      expect(row.slice(5)).toEqual([admin.id, 'Export Admin', admin.email, 'ADMIN', '', '', ''])
    }
    const times = data.map((row) => row[1]!)
    expect(times).toEqual([...times].sort().reverse())
    const response = await download('/api/admin/activity-logs/export?from=2000-01-01&to=2000-01-02')
    expect(response.headers['content-disposition']).toBe(`attachment; filename="activity-logs-${t.clock.now().toISOString().slice(0, 10)}.csv"`)
    expect(rows(response.body)).toEqual([ACTIVITY_HEADER])
  })

  it('names the actor of each entry: a service application by its client id and its name as it was then, an admin, or no one', async () => {
    const mark = `acted${Date.now()}`
    const person = await quickUser(t, { name: 'Acted Upon', email: `${mark}@example.com` })
    t.clock.advance(1)
    await recordActivity(t.ctx.db, {
      userId: person.id,
      actorApplication: { id: 'app_payrollpayrollpayroll', name: '=Payroll Sync' },
      kind: 'updated',
      activity: 'Updated profile',
      ip: null,
      at: t.clock.now(),
    })
    t.clock.advance(1)
    await recordActivity(t.ctx.db, { userId: person.id, actorId: admin.id, kind: 'updated', activity: 'Updated profile', ip: null, at: t.clock.now() })
    t.clock.advance(1)
    await recordActivity(t.ctx.db, { userId: person.id, kind: 'updated', activity: 'Updated profile', ip: null, at: t.clock.now() })
    const [, ...entries] = rows((await download(`/api/admin/activity-logs/export?search=${encodeURIComponent(mark)}&activity=updated`)).body)
    expect(entries.map((entry) => entry.slice(ACTIVITY_HEADER.indexOf('actorType')))).toEqual([
      ['', '', ''],
      ['user', admin.id, 'Export Admin'],
      ['application', 'app_payrollpayrollpayroll', "'=Payroll Sync"],
    ])
  })

  it('records each export with its filters and row count', async () => {
    await download(`/api/admin/users/export?search=${stamp}&role=CLIENT&verified=true`)
    const entry = await t.ctx.db
      .selectFrom('activities')
      .select(['activity', 'details', 'user_id', 'actor_id', 'kind'])
      .where('activity', '=', 'Exported users')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry).toMatchObject({ user_id: admin.id, actor_id: admin.id, kind: 'other' })
    expect(entry.details).toBe(`filters: search ${stamp}, role CLIENT, sort createdAt, order desc, verified true; rows: ${awkward.length}`)
    await download('/api/admin/activity-logs/export?activity=deleted&from=2000-01-01')
    const logged = await t.ctx.db
      .selectFrom('activities')
      .select('details')
      .where('activity', '=', 'Exported activity logs')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(logged.details).toBe('filters: activity deleted, from 2000-01-01T00:00:00.000Z; rows: 0')
  })

  it('refuses bad filters with a 400 and writes nothing', async () => {
    const before = await t.ctx.db
      .selectFrom('activities')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    expectFailure(await as(t, admin).get('/api/admin/users/export?sort=password'), 400)
    expectFailure(await as(t, admin).get('/api/admin/users/export?page=2'), 400)
    expectFailure(await as(t, admin).get('/api/admin/users/export?inactiveDays=0'), 400)
    expectFailure(await as(t, admin).get('/api/admin/activity-logs/export?from=2026-02-02&to=2026-02-01'), 400)
    expectFailure(await as(t, admin).get('/api/admin/activity-logs/export?limit=10'), 400)
    const after = await t.ctx.db
      .selectFrom('activities')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
  })
})
