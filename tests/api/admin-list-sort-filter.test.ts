import { beforeAll, describe, expect, it } from 'vitest'
import { USER_SORTS } from '~shared/schemas/lists'
import { type SignedIn, useTestApp } from '../support/test-app'
import { as, expectFailure, expectSuccess } from './helpers/requests'
import { SoftwareAuthenticator } from '../support/software-authenticator'
import { quickSignIn, quickUser } from './helpers/users'

interface Listed {
  id: string
  name: string
  email: string
  role: string
  status: string
  emailVerified: boolean
  createdAt: string
  lastSignInAt: string | null
  mfaEnabled: boolean
}

const DAY = 86_400

/**
 * The admin's user list sorted by each column both ways, filtered by verification, two-factor
 * and dormancy (at the injected clock), and the last sign-in every sign-in leaves (contract
 * section 7).
 */
describe('user list: sort and filters', () => {
  const t = useTestApp()
  let admin: SignedIn
  const stamp = `sf${Date.now()}`
  const people: { id: string; email: string }[] = []

  beforeAll(async () => {
    admin = await t.signIn({ role: 'ADMIN', name: 'Sorting Admin' })
    // Ties on purpose: two pairs share a name, roles and statuses repeat, and three people are
    // created at the same instant.
    const rows = [
      { name: 'Zoë Ångström', role: 'CLIENT', status: 'ACTIVE' },
      { name: 'anna Berg', role: 'MODERATOR', status: 'SUSPENDED' },
      { name: 'Anna Berg', role: 'CLIENT', status: 'ACTIVE' },
      { name: 'Bob Stone', role: 'DEVELOPER', status: 'INACTIVE' },
      { name: 'Bob Stone', role: 'CLIENT', status: 'ACTIVE' },
      { name: 'Carla Diaz', role: 'ADMIN', status: 'ACTIVE' },
      { name: 'Dmitri Ivanov', role: 'CLIENT', status: 'INACTIVE' },
    ] as const
    for (const [i, row] of rows.entries()) {
      if (i < 4) t.clock.advance(60)
      people.push(await quickUser(t, { ...row, email: `p${i}.${stamp}@example.com` }))
    }
    // Sign-ins: p0 today, p1 and p2 at the same moment 40 days ago, p3 400 days ago; the rest never.
    const now = t.clock.now().getTime()
    const at = (days: number) => new Date(now - days * DAY * 1000)
    const signedIn: [number, Date][] = [
      [0, at(0)],
      [1, at(40)],
      [2, at(40)],
      [3, at(400)],
    ]
    for (const [i, when] of signedIn) await t.ctx.db.updateTable('users').set({ last_sign_in_at: when }).where('id', '=', people[i]!.id).execute()
    await t.ctx.db.updateTable('users').set({ email_verified_at: null }).where('id', 'in', [people[4]!.id, people[6]!.id]).execute()
    await t.ctx.db.updateTable('users').set({ mfa_enabled: true }).where('id', 'in', [people[1]!.id, people[5]!.id]).execute()
  })

  const list = async (query: string) =>
    expectSuccess(await as(t, admin).get(`/api/admin/users?search=${stamp}${query.includes('limit=') ? '' : '&limit=100'}&${query}`)).data as {
      users: Listed[]
      pagination: { total: number }
    }
  const ids = async (query: string) => (await list(query)).users.map((u) => u.id)

  /** The list as the database orders it, computed here from the rows with the same rule. */
  const expected = (users: Listed[], key: (u: Listed) => string | number, order: 'asc' | 'desc') => {
    const sorted = [...users].sort((a, b) => {
      const ka = key(a)
      const kb = key(b)
      const byKey = ka < kb ? -1 : ka > kb ? 1 : 0
      const byId = a.id < b.id ? -1 : a.id > b.id ? 1 : 0
      return byKey !== 0 ? byKey : byId
    })
    return (order === 'asc' ? sorted : sorted.reverse()).map((u) => u.id)
  }

  const keys: Record<(typeof USER_SORTS)[number], (u: Listed) => string | number> = {
    name: (u) => u.name.toLowerCase(),
    email: (u) => u.email,
    role: (u) => u.role,
    status: (u) => u.status,
    createdAt: (u) => u.createdAt,
    lastSignInAt: (u) => (u.lastSignInAt ? Date.parse(u.lastSignInAt) : -Infinity),
  }

  it.each(USER_SORTS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))(
    'sorts by %s %s, ties broken by id, the same on every page',
    async (sort, order) => {
      const all = await list(`sort=${sort}&order=${order}`)
      expect(all.users).toHaveLength(7)
      // byte order of the lower-cased text is the database's order here (C collation on both engines).
      expect(all.users.map((u) => u.id)).toEqual(expected(all.users, keys[sort], order))
      // Page by page, two at a time: the same order, nothing repeated or skipped.
      const paged: string[] = []
      for (let page = 1; page <= 4; page++) paged.push(...(await ids(`sort=${sort}&order=${order}&limit=2&page=${page}`)))
      expect(paged).toEqual(all.users.map((u) => u.id))
      // The other order is exactly this one reversed.
      expect(await ids(`sort=${sort}&order=${order === 'asc' ? 'desc' : 'asc'}`)).toEqual([...all.users.map((u) => u.id)].reverse())
    },
  )

  it('sorts newest first by default', async () => {
    const users = (await list('')).users
    expect(users.map((u) => u.id)).toEqual(expected(users, keys.createdAt, 'desc'))
    expect(users[users.length - 1]!.id).toBe(people[0]!.id)
  })

  it('puts accounts that never signed in last when sorting by last sign-in, newest first', async () => {
    const users = (await list('sort=lastSignInAt&order=desc')).users
    expect(users.slice(0, 4).map((u) => u.id)).toEqual([people[0]!.id, ...[people[1]!.id, people[2]!.id].sort().reverse(), people[3]!.id])
    expect(users.slice(4).every((u) => u.lastSignInAt === null)).toBe(true)
  })

  it('carries lastSignInAt and mfaEnabled in list items and on the user page', async () => {
    const users = (await list('sort=createdAt&order=asc')).users
    expect(users[0]).toMatchObject({ id: people[0]!.id, lastSignInAt: t.clock.now().toISOString(), mfaEnabled: false })
    expect(users[1]).toMatchObject({ id: people[1]!.id, mfaEnabled: true })
    expect(users.find((u) => u.id === people[6]!.id)).toMatchObject({ lastSignInAt: null, emailVerified: false })
    const one = expectSuccess(await as(t, admin).get(`/api/admin/users/${people[1]!.id}`)).data
    expect(one).toMatchObject({ id: people[1]!.id, mfaEnabled: true, lastSignInAt: new Date(t.clock.now().getTime() - 40 * DAY * 1000).toISOString() })
  })

  it('filters by verification and by two-factor, with exact totals', async () => {
    const unverified = await list('verified=false')
    expect(unverified.users.map((u) => u.id).sort()).toEqual([people[4]!.id, people[6]!.id].sort())
    expect(unverified.pagination.total).toBe(2)
    expect((await list('verified=true')).pagination.total).toBe(5)
    expect((await ids('mfa=true')).sort()).toEqual([people[1]!.id, people[5]!.id].sort())
    expect((await list('mfa=false')).pagination.total).toBe(5)
    expect(await ids('mfa=true&verified=true&role=CLIENT')).toEqual([])
    expect(await ids('mfa=true&role=ADMIN')).toEqual([people[5]!.id])
  })

  it('finds dormant accounts at the injected clock, never-signed-in ones included', async () => {
    const dormant = async (days: number) => (await ids(`inactiveDays=${days}&sort=name&order=asc`)).sort()
    const never = [people[4]!.id, people[5]!.id, people[6]!.id]
    expect(await dormant(30)).toEqual([people[1]!.id, people[2]!.id, people[3]!.id, ...never].sort())
    expect(await dormant(40)).toEqual([people[1]!.id, people[2]!.id, people[3]!.id, ...never].sort())
    expect(await dormant(41)).toEqual([people[3]!.id, ...never].sort())
    expect(await dormant(365)).toEqual([people[3]!.id, ...never].sort())
    expect(await dormant(500)).toEqual([...never].sort())
  })

  it('records a passkey sign-in as a sign-in too', async () => {
    const holder = await quickSignIn(t, { name: `Passkey ${stamp}` })
    const authenticator = new SoftwareAuthenticator('http://app.test')
    const options = expectSuccess(await as(t, holder).post('/api/auth/passkeys/registration/options', {})).data
    expectSuccess(await as(t, holder).post('/api/auth/passkeys/registration', { response: authenticator.create(options) }), 201)
    t.clock.advance(60)
    const challenge = expectSuccess(await t.request('POST', '/api/auth/passkeys/authentication/options')).data
    const response = authenticator.get(challenge, { credentialId: authenticator.credentials[0]!.id })
    expectSuccess(await t.request('POST', '/api/auth/passkeys/authentication', { body: { response } }))
    const row = await t.ctx.db.selectFrom('users').select('last_sign_in_at').where('id', '=', holder.id).executeTakeFirstOrThrow()
    expect(row.last_sign_in_at?.toISOString()).toBe(t.clock.now().toISOString())
  })

  it('refuses unknown sorts, orders and filter values, and non-positive inactiveDays, with the field named', async () => {
    const bad: [string, string][] = [
      ['sort=password', 'sort'],
      ['sort=created_at', 'sort'],
      ['sort=', 'sort'],
      ['order=up', 'order'],
      ['order=ASC', 'order'],
      ['verified=yes', 'verified'],
      ['verified=1', 'verified'],
      ['mfa=on', 'mfa'],
      ['inactiveDays=0', 'inactiveDays'],
      ['inactiveDays=-5', 'inactiveDays'],
      ['inactiveDays=1.5', 'inactiveDays'],
      ['inactiveDays=abc', 'inactiveDays'],
      ['inactiveDays=1e3', 'inactiveDays'],
      ['inactiveDays=99999999', 'inactiveDays'],
      ['sort=name&sort=email', 'sort'],
    ]
    for (const [query, field] of bad) {
      const body = expectFailure(await as(t, admin).get(`/api/admin/users?${query}`), 400)
      expect(
        body.errors?.map((e) => e.field),
        query,
      ).toContain(field)
      expect(body.errors?.find((e) => e.field === field)?.message, query).toMatch(new RegExp(field === 'sort' || field === 'order' ? `Unknown ${field}` : field))
    }
  })

  it('records the last sign-in of every completed sign-in, at the clock, without touching updatedAt', async () => {
    const person = await quickUser(t, { name: `Fresh ${stamp}` })
    const before = await t.ctx.db.selectFrom('users').select(['last_sign_in_at', 'updated_at']).where('id', '=', person.id).executeTakeFirstOrThrow()
    expect(before.last_sign_in_at).toBeNull()
    t.clock.advance(5)
    expect((await t.login(person.email, person.password)).statusCode).toBe(200)
    const after = await t.ctx.db.selectFrom('users').select(['last_sign_in_at', 'updated_at']).where('id', '=', person.id).executeTakeFirstOrThrow()
    expect(after.last_sign_in_at?.toISOString()).toBe(t.clock.now().toISOString())
    expect(after.updated_at).toEqual(before.updated_at)
    // A wrong password is no sign-in.
    t.clock.advance(5)
    expect((await t.login(person.email, 'Wrong-Password-1!')).statusCode).toBe(401)
    const unchanged = await t.ctx.db.selectFrom('users').select('last_sign_in_at').where('id', '=', person.id).executeTakeFirstOrThrow()
    expect(unchanged.last_sign_in_at).toEqual(after.last_sign_in_at)
    const listed = (await list('sort=lastSignInAt&order=desc')).users[0]!
    expect(listed).toMatchObject({ id: person.id, lastSignInAt: after.last_sign_in_at!.toISOString() })
  })

  it('counts dormancy from the clock: 30 days on, a sign-in of today is 30 days old', async () => {
    t.clock.advance(30 * DAY)
    // The admin's session would have ended meanwhile: signed in again, now.
    const again = expectSuccess(await t.login(admin.email, admin.password)).data
    admin = { ...admin, accessToken: again.accessToken, csrfToken: again.csrfToken }
    expect(await ids('inactiveDays=30')).toContain(people[0]!.id)
    expect(await ids('inactiveDays=31')).not.toContain(people[0]!.id)
  })
})
