import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { entryKindWeek, entryWeek, searchTuning } from '~server/data/activity/activity-list'
import { useTestApp, type SignedIn } from '../support/test-app'
import { as, expectFailure, expectSuccess } from './helpers/requests'

interface Entry {
  id: string
  activity: string
  details: string | null
  ipAddress: string | null
  createdAt: string
  user?: { id: string; name: string; email: string; role: string; profilePicture: string | null } | null
}

describe('activity logs', () => {
  const t = useTestApp()
  let admin: SignedIn
  let moderator: SignedIn
  let developer: SignedIn
  let client: SignedIn

  beforeAll(async () => {
    admin = await t.signIn({ role: 'ADMIN', name: 'Audit Admin' })
    t.clock.advance(60)
    moderator = await t.signIn({ role: 'MODERATOR', name: 'Mona Moderator' })
    t.clock.advance(60)
    developer = await t.signIn({ role: 'DEVELOPER', name: 'Devi Developer' })
    t.clock.advance(60)
    client = await t.signIn({ name: 'Clara Client' })
    // A little history, one minute apart, so that "newest first" is well defined.
    t.clock.advance(60)
    expectSuccess(await as(t, moderator).put('/api/users/profile', { name: 'Mona M. Moderator' }))
    t.clock.advance(60)
    expectSuccess(await as(t, admin).put(`/api/admin/users/${client.id}`, { role: 'DEVELOPER' }))
    t.clock.advance(60)
    expectSuccess(await as(t, moderator).put('/api/users/profile', { phone: '+44 20 7946 0000' }))
    t.clock.advance(60)
  })

  const mine = async (who: SignedIn, query = '') => expectSuccess(await as(t, who).get(`/api/activity${query}`)).data
  const everyone = async (query = '') => expectSuccess(await as(t, admin).get(`/api/admin/activity-logs${query}`)).data

  it("lists the caller's own entries, newest first, with the spec's fields only", async () => {
    const data = await mine(moderator)
    expect(data.pagination).toEqual({ page: 1, limit: 20, total: 4, pages: 1 })
    expect(data.activities.map((e: Entry) => e.activity)).toEqual(['Updated profile', 'Updated profile', 'Logged in', 'Registered'])
    for (const entry of data.activities) {
      expect(Object.keys(entry).sort()).toEqual(['activity', 'createdAt', 'details', 'id', 'ipAddress'])
    }
    expect(data.activities[0].ipAddress).toBe('127.0.0.1')
    expect(data.activities[0].details).toBe('phone changed')
    const times = data.activities.map((e: Entry) => e.createdAt)
    expect([...times].sort().reverse()).toEqual(times)
  })

  it("includes what an admin did to others in the admin's own log, and in the target's", async () => {
    const adminEntries = (await mine(admin)).activities.map((e: Entry) => e.activity)
    expect(adminEntries).toContain(`Changed role of Clara Client (${client.email})`)
    const targetEntries = (await mine(developer)).activities.map((e: Entry) => e.activity)
    expect(targetEntries).not.toContain(`Changed role of Clara Client (${client.email})`)
  })

  it("shows everyone's entries to staff, each with its user", async () => {
    const data = await everyone()
    expect(data.activities[0]).toMatchObject({
      activity: 'Updated profile',
      user: { id: moderator.id, name: 'Mona M. Moderator', email: moderator.email, role: 'MODERATOR', profilePicture: null },
    })
    expect(Object.keys(data.activities[0].user).sort()).toEqual(['email', 'id', 'name', 'profilePicture', 'role'])
    const roleChange = data.activities.find((e: Entry) => e.activity.startsWith('Changed role of'))
    expect(roleChange).toMatchObject({ details: 'role: CLIENT → DEVELOPER', user: { id: client.id, role: 'DEVELOPER' } })
    expect(data.pagination.total).toBe(data.activities.length)

    for (const staff of [moderator, developer]) {
      const seen = expectSuccess(await as(t, staff).get('/api/admin/activity-logs')).data
      expect(seen.pagination.total).toBe(data.pagination.total)
    }
  })

  it('filters by the spec values, which the first word of each entry matches', async () => {
    const loggedIn = await everyone('?activity=logged%20in')
    expect(loggedIn.activities.length).toBe(4)
    for (const entry of loggedIn.activities) expect(entry.activity).toBe('Logged in')
    const updated = await everyone('?activity=updated')
    expect(updated.activities.map((e: Entry) => e.activity.split(' ')[0]).sort()).toEqual(['Changed', 'Updated', 'Updated'])
    const registered = await everyone('?activity=registered')
    expect(registered.pagination.total).toBe(4)
    expect((await everyone('?activity=all')).pagination.total).toBe((await everyone()).pagination.total)
    expect((await everyone('?activity=deleted')).activities).toEqual([])
    expectFailure(await as(t, admin).get('/api/admin/activity-logs?activity=hacked'), 400, 'Unknown activity')
    expect((await mine(moderator, '?activity=logged%20in')).activities.map((e: Entry) => e.activity)).toEqual(['Logged in'])
  })

  it('searches activity text, details, and the user name and e-mail, case-insensitively, anywhere', async () => {
    const byText = await everyone('?search=PROFILE')
    expect(byText.activities.map((e: Entry) => e.activity)).toEqual(['Updated profile', 'Updated profile'])
    const byDetails = await everyone('?search=client%20%E2%86%92')
    expect(byDetails.activities.map((e: Entry) => e.details)).toEqual(['role: CLIENT → DEVELOPER'])
    const byName = await everyone('?search=devi%20dev')
    expect(byName.activities.length).toBeGreaterThan(0)
    for (const entry of byName.activities) expect(entry.user.id).toBe(developer.id)
    const byEmail = await everyone(`?search=${encodeURIComponent(client.email.slice(3, 15).toUpperCase())}`)
    expect(byEmail.activities.map((e: Entry) => e.user?.id)).toContain(client.id)
    const combined = await everyone('?search=mona&activity=updated')
    expect(combined.pagination.total).toBe(2)
    expect((await mine(moderator, '?search=PHONE')).activities.map((e: Entry) => e.details)).toEqual(['phone changed'])
  })

  it("finds entries by their user's current name, after a rename", async () => {
    const renamed = await everyone('?search=mona%20m.%20moderator&activity=logged%20in')
    expect(renamed.activities.map((e: Entry) => e.user?.id)).toEqual([moderator.id])
    expect((await everyone('?search=mona%20moderator&activity=logged%20in')).activities).toEqual([])
  })

  it('searches with one or two characters too', async () => {
    const data = await everyone('?search=Lo')
    expect(data.activities.length).toBeGreaterThan(0)
    for (const entry of data.activities) {
      const haystack = [entry.activity, entry.details, entry.user?.name, entry.user?.email].join(' ').toLowerCase()
      expect(haystack).toContain('lo')
    }
    expect((await mine(moderator, '?search=d')).pagination.total).toBeGreaterThan(0)
  })

  it.each(['%', '_', '\\', '%%', "' OR '1'='1", "'; DROP TABLE activities; --", '") OR 1=1 --', '[a-z]*', '\u0000'])(
    'treats %j as text to find, never as SQL',
    async (search) => {
      for (const path of ['/api/admin/activity-logs', '/api/activity']) {
        const response = await as(t, admin).get(`${path}?search=${encodeURIComponent(search)}`)
        expect(response.statusCode, response.body).toBeLessThan(500)
        if (response.statusCode === 200) expect(response.json().data.activities).toEqual([])
      }
    },
  )

  it('pages with page and limit, answering a limit over 100 with 100', async () => {
    const first = await everyone('?limit=2')
    const second = await everyone('?limit=2&page=2')
    expect(first.pagination).toMatchObject({ page: 1, limit: 2, pages: Math.ceil(first.pagination.total / 2) })
    expect(second.pagination.page).toBe(2)
    expect(second.activities[0].id).not.toBe(first.activities[0].id)
    expect((await everyone('?limit=500')).pagination.limit).toBe(100)
    expect((await everyone('?page=999')).activities).toEqual([])
  })

  it.each(['page=0', 'page=-1', 'page=1.5', 'page=abc', 'limit=0', 'limit=-5', 'limit=2.5', 'limit=ten', 'page=', 'sort=id'])('refuses %s', async (query) => {
    expectFailure(await as(t, admin).get(`/api/admin/activity-logs?${query}`), 400)
    expectFailure(await as(t, moderator).get(`/api/activity?${query}`), 400)
  })

  it('refuses pages too far back to be worth the database work', async () => {
    expectFailure(await as(t, admin).get('/api/admin/activity-logs?page=100000&limit=100'), 400, 'This page is too far back. Please narrow the search or the filters.')
  })

  it('is closed to the client role, and to anonymous callers', async () => {
    expectFailure(await as(t, await t.signIn()).get('/api/activity'), 403)
    expectFailure(await t.request('GET', '/api/admin/activity-logs'), 401)
  })
})

describe('activity totals past the exact-count cap', () => {
  const t = useTestApp()
  let admin: SignedIn
  beforeAll(async () => {
    admin = await t.signIn({ role: 'ADMIN', name: 'Busy Admin' })
    // 1,500 sign-ins of the admin's, one minute apart, going back in time.
    await sql`
      INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
      SELECT ${admin.id}::uuid, ${admin.id}::uuid, 'logged in', 'Logged in', 'Firefox on Linux', '10.0.0.1',
        ${t.clock.now()}::timestamptz - n * interval '1 minute'
      FROM generate_series(1, 1500) AS n
    `.execute(t.ctx.db)
  })

  it('counts exactly up to 1,000 matches and estimates beyond, for searches and own entries', async () => {
    const searched = expectSuccess(await as(t, admin).get('/api/admin/activity-logs?search=firefox')).data
    expect(searched.activities).toHaveLength(20)
    expect(searched.pagination.total).toBeGreaterThan(1000)
    expect(searched.pagination.pages).toBe(Math.ceil(searched.pagination.total / 20))
    const own = expectSuccess(await as(t, admin).get('/api/activity')).data
    expect(own.pagination.total).toBeGreaterThan(1000)
    // Unsearched totals come from the counters: exact.
    const everything = expectSuccess(await as(t, admin).get('/api/admin/activity-logs?activity=logged%20in')).data
    expect(everything.pagination.total).toBe(1501)
  })

  it('pages back to the oldest match, newest first', async () => {
    const page50 = expectSuccess(await as(t, admin).get('/api/admin/activity-logs?search=firefox&page=50')).data
    const page51 = expectSuccess(await as(t, admin).get('/api/admin/activity-logs?search=firefox&page=51')).data
    const times = [...page50.activities, ...page51.activities].map((e: Entry) => e.createdAt)
    expect(times).toHaveLength(40)
    expect([...times].sort().reverse()).toEqual(times)
    const last = expectSuccess(await as(t, admin).get('/api/admin/activity-logs?search=firefox&page=75')).data
    expect(last.activities).toHaveLength(20)
    expect(last.activities.at(-1).createdAt).toBe(new Date(t.clock.now().getTime() - 1500 * 60_000).toISOString())
  })

  it('finds the same entries whichever way the search goes: all matches through the index, a newest-first walk, or week by week', async () => {
    const pages = async () => {
      const seen: string[][] = []
      for (const query of ['search=firefox', 'search=firefox&page=50', 'search=firefox&page=75', 'search=busy%20admin&activity=logged%20in&page=3']) {
        seen.push(expectSuccess(await as(t, admin).get(`/api/admin/activity-logs?${query}`)).data.activities.map((e: Entry) => e.id))
      }
      return seen
    }
    const saved = { ...searchTuning }
    try {
      Object.assign(searchTuning, { rareMatches: Infinity })
      const allMatches = await pages()
      Object.assign(searchTuning, { rareMatches: 0, readPerMatch: Infinity, weekScan: Infinity })
      const walked = await pages()
      Object.assign(searchTuning, { rareMatches: 0, walkPerEntry: Infinity, readPerMatch: Infinity, weekScan: 0, readPerWeekMatch: 0 })
      const byWeek = await pages()
      expect(walked).toEqual(allMatches)
      expect(byWeek).toEqual(allMatches)
      expect(allMatches[2]).toHaveLength(20)
    } finally {
      Object.assign(searchTuning, saved)
    }
  })
})

describe('a search read week by week', () => {
  const t = useTestApp()
  let admin: SignedIn
  const WEEK = 7 * 24 * 3600 * 1000
  beforeAll(async () => {
    admin = await t.signIn({ role: 'ADMIN', name: 'Weekly Admin' })
    // 300 sign-ins over 40 weeks, the busiest weeks first, some weeks empty, several at the same
    // moment (ties are ordered by id); every third from Chrome, the rest from Firefox.
    await sql`
      INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
      SELECT ${admin.id}::uuid, ${admin.id}::uuid, CASE WHEN n % 5 = 0 THEN 'logged out' ELSE 'logged in' END,
        CASE WHEN n % 5 = 0 THEN 'Logged out' ELSE 'Logged in' END,
        CASE WHEN n % 3 = 0 THEN 'Chrome on Windows' ELSE 'Firefox on Linux' END, '10.0.0.2',
        ${t.clock.now()}::timestamptz - (floor(sqrt(n) * 2.3) * ${WEEK / 1000} + (n % 4) * 3600) * interval '1 second'
      FROM generate_series(1, 300) AS n WHERE floor(sqrt(n) * 2.3)::int % 7 <> 3
    `.execute(t.ctx.db)
  })

  it('gives every page as the newest-first walk does, over many short runs of weeks, with filters and a date range', async () => {
    const queries = [
      'search=firefox&page=1',
      'search=firefox&page=4',
      'search=firefox&page=9',
      'search=chrome&page=2&limit=10',
      'search=weekly&activity=logged%20out&page=2&limit=10',
      `search=firefox&from=${new Date(t.clock.now().getTime() - 20 * WEEK).toISOString()}&to=${new Date(t.clock.now().getTime() - 5 * WEEK).toISOString()}&page=2`,
      'search=nomatch',
    ]
    const pages = async () => {
      const seen: { ids: string[]; total: number }[] = []
      for (const query of queries) {
        const data = expectSuccess(await as(t, admin).get(`/api/admin/activity-logs?${query}`)).data
        seen.push({ ids: data.activities.map((e: Entry) => e.id), total: data.pagination.total })
      }
      return seen
    }
    const saved = { ...searchTuning }
    try {
      Object.assign(searchTuning, { rareMatches: 0, readPerMatch: Infinity, weekScan: Infinity })
      const walked = await pages()
      Object.assign(searchTuning, { rareMatches: 0, walkPerEntry: Infinity, readPerMatch: Infinity, weekScan: 0, readPerWeekMatch: 0, longestWeekRun: 2 })
      const byWeek = await pages()
      expect(byWeek).toEqual(walked)
      expect(walked[2]!.ids.length).toBeGreaterThan(0)
      expect(walked[4]!.ids).toHaveLength(10)
      expect(walked[5]!.ids.length).toBeGreaterThan(0)
      expect(walked[6]!.ids).toHaveLength(0)
    } finally {
      Object.assign(searchTuning, saved)
    }
  })

  it('matches a term with separators as typed, whichever way the search goes', async () => {
    // The index is asked for the term's runs of letters ("alpha", "beta9"); the term itself decides.
    const details = ['Key alpha.beta9 used', 'Key xalpha.beta99x used', 'Key alpha beta9 used', 'Key beta9.alpha used', 'Key alpha-beta9 used']
    for (const [i, text] of details.entries()) {
      await sql`INSERT INTO activities (user_id, actor_id, kind, activity, details, created_at)
        VALUES (${admin.id}::uuid, ${admin.id}::uuid, 'updated', 'Updated profile', ${text}, ${new Date(t.clock.now().getTime() - i * 3 * WEEK)})`.execute(t.ctx.db)
    }
    const found = async () =>
      expectSuccess(await as(t, admin).get('/api/admin/activity-logs?search=Alpha.Beta9'))
        .data.activities.map((e: Entry) => e.details)
        .sort()
    const saved = { ...searchTuning }
    try {
      const ways = [
        { rareMatches: Infinity },
        { rareMatches: 0, readPerMatch: Infinity, weekScan: Infinity },
        { rareMatches: 0, walkPerEntry: Infinity, readPerMatch: Infinity, weekScan: 0, readPerWeekMatch: 0, longestWeekRun: 2 },
      ]
      for (const way of ways) {
        Object.assign(searchTuning, saved, way)
        expect(await found()).toEqual(['Key alpha.beta9 used', 'Key xalpha.beta99x used'])
      }
    } finally {
      Object.assign(searchTuning, saved)
    }
  })

  it('reads each week, or the week of one kind, through the index of weeks, kinds and trigrams (the keys as migration 0016 indexes them)', async () => {
    const plan = async (condition: ReturnType<typeof sql>) =>
      t.ctx.db.transaction().execute(async (trx) => {
        // Only a bitmap scan is left to the planner, and only this index holds the conditions.
        await sql`SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off`.execute(trx)
        const rows = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT a.id FROM activities a WHERE ${condition} AND a.search_text LIKE '%firefox%'`.execute(trx)
        return rows.rows.map((row) => row['QUERY PLAN']).join('\n')
      })
    const week = await plan(sql`${entryWeek} = 2900`)
    expect(week).toContain('activities_search_weekly')
    expect(week).toMatch(/Index Cond: .*= 2900\) AND \(search_text ~~ '%firefox%'::text\)\)/)
    const kindWeek = await plan(sql`${entryKindWeek} = 'logged in 2900'`)
    expect(kindWeek).toContain('activities_search_weekly')
    expect(kindWeek).toMatch(/Index Cond: .*= 'logged in 2900'::text\) AND \(search_text ~~ '%firefox%'::text\)\)/)
  })
})
