import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, type SignedIn } from '../support/test-app'
import { shortSearchTuning } from '~server/data/users/user-list'
import { as, expectFailure, expectSuccess } from './helpers/requests'
import { quickUser } from './helpers/users'

interface ListedUser {
  id: string
  name: string
  email: string
  role: string
  status: string
}

describe('user list', () => {
  const t = useTestApp()
  let admin: SignedIn
  // Digits only: the searches below look for single letters, which a base-36 stamp in every
  // address could contain (a stamp with a 'y' once made '?search=y' match everyone).
  const stamp = Date.now().toString()

  beforeAll(async () => {
    // An address without random letters: a search for two letters must not find the admin by chance.
    admin = await t.signIn({ role: 'ADMIN', name: 'List Admin', email: `listadmin.${stamp}@example.com` })
    const people = [
      { name: 'Johanna Schmidt', role: 'CLIENT' },
      { name: 'John Doe', role: 'DEVELOPER' },
      { name: 'Mary Johnson', role: 'MODERATOR', status: 'SUSPENDED' },
      { name: 'Percent 100% Sure', role: 'CLIENT' },
      { name: 'Under_Score', role: 'CLIENT', status: 'INACTIVE' },
      { name: 'Back\\Slash', role: 'CLIENT' },
    ] as const
    for (const person of people) {
      t.clock.advance(10)
      await quickUser(t, { ...person, email: `${person.name.replace(/[^a-z]/gi, '').toLowerCase()}.${stamp}@example.com` })
    }
    for (let i = 0; i < 12; i++) {
      t.clock.advance(10)
      await quickUser(t, { name: `Filler Person ${i}`, email: `filler${i}.${stamp}@example.org` })
    }
  })

  const list = async (query = '') =>
    expectSuccess(await as(t, admin).get(`/api/admin/users${query}`)).data as {
      users: ListedUser[]
      pagination: { page: number; limit: number; total: number; pages: number }
    }
  const names = (data: { users: ListedUser[] }) => data.users.map((u) => u.name)

  it('shows ten users a page, newest first, with the total', async () => {
    const data = await list()
    expect(data.pagination).toEqual({ page: 1, limit: 10, total: 19, pages: 2 })
    expect(data.users).toHaveLength(10)
    expect(data.users[0]!.name).toBe('Filler Person 11')
    const second = await list('?page=2')
    expect(second.users).toHaveLength(9)
    expect(second.users.at(-1)!.name).toBe('List Admin')
    for (const user of data.users) expect(Object.keys(user)).not.toContain('password_hash')
  })

  it('searches name or e-mail anywhere, whatever the case', async () => {
    expect(names(await list('?search=JOHN')).sort()).toEqual(['John Doe', 'Mary Johnson'])
    expect(names(await list('?search=ohnso'))).toEqual(['Mary Johnson'])
    expect(names(await list(`?search=${encodeURIComponent('doe.' + stamp)}`))).toEqual(['John Doe'])
    expect((await list('?search=example.org')).pagination.total).toBe(12)
    expect((await list('?search=nobody-has-this')).users).toEqual([])
  })

  it.each([
    ['through the index of character pairs', 1e12],
    ['by the newest-first walk', 0],
  ])('matches anywhere for searches of one or two characters too, %s', async (_way, rareMatches) => {
    const saved = { ...shortSearchTuning }
    try {
      Object.assign(shortSearchTuning, { rareMatches })
      expect(names(await list('?search=Jo')).sort()).toEqual(['Johanna Schmidt', 'John Doe', 'Mary Johnson'])
      expect(names(await list('?search=CE'))).toEqual(['Percent 100% Sure'])
      expect(names(await list(`?search=${encodeURIComponent('a S')}`))).toEqual(['Johanna Schmidt'])
      expect(names(await list('?search=y'))).toEqual(['Mary Johnson'])
      expect(names(await list('?search=qz'))).toEqual([])
      expect((await list('?search=.o')).pagination.total).toBe(12)
      expect(names(await list('?search=_'))).toEqual(['Under_Score'])
      expect(names(await list('?search=%25'))).toEqual(['Percent 100% Sure'])
      expect((await list('?search=o&role=MODERATOR')).users.map((u) => u.name)).toEqual(['Mary Johnson'])
    } finally {
      Object.assign(shortSearchTuning, saved)
    }
  })

  it('filters by role and status, together with a search', async () => {
    expect(names(await list('?role=DEVELOPER'))).toEqual(['John Doe'])
    expect(names(await list('?status=SUSPENDED'))).toEqual(['Mary Johnson'])
    expect(names(await list('?search=john&role=MODERATOR&status=SUSPENDED'))).toEqual(['Mary Johnson'])
    expect((await list('?role=all&status=all')).pagination.total).toBe(19)
    expect((await list('?role=CLIENT')).pagination.total).toBe(16)
    expectFailure(await as(t, admin).get('/api/admin/users?role=SUPERUSER'), 400, 'Unknown role')
    expectFailure(await as(t, admin).get('/api/admin/users?status=GONE'), 400, 'Unknown status')
  })

  it('finds LIKE wildcards literally', async () => {
    expect(names(await list('?search=100%25'))).toEqual(['Percent 100% Sure'])
    expect(names(await list(`?search=${encodeURIComponent('% sure')}`))).toEqual(['Percent 100% Sure'])
    expect(names(await list('?search=%25'))).toEqual(['Percent 100% Sure'])
    expect(names(await list('?search=der_sco'))).toEqual(['Under_Score'])
    expect(names(await list('?search=der%20sco'))).toEqual([])
    expect(names(await list('?search=_'))).toEqual(['Under_Score'])
    expect(names(await list(`?search=${encodeURIComponent('ack\\sl')}`))).toEqual(['Back\\Slash'])
    expect(names(await list(`?search=${encodeURIComponent('\\')}`))).toEqual(['Back\\Slash'])
  })

  it.each(["' OR '1'='1", "'; DROP TABLE users; --", "admin'--", '" OR ""="', "%' AND 1=1 --", "Robert'); DROP TABLE users;--"])(
    'treats %j as text, never as SQL',
    async (search) => {
      const data = await list(`?search=${encodeURIComponent(search)}`)
      expect(data.users).toEqual([])
      expect((await list()).pagination.total).toBe(19)
    },
  )

  it.each([
    ['page=0', 'page must be a positive integer'],
    ['page=-1', 'page must be a positive integer'],
    ['page=1.5', 'page must be a positive integer'],
    ['page=abc', 'page must be a positive integer'],
    ['limit=0', 'limit must be a positive integer'],
    ['limit=-1', 'limit must be a positive integer'],
    ['limit=1.5', 'limit must be a positive integer'],
    ['limit=abc', 'limit must be a positive integer'],
  ])('refuses %s', async (query, message) => {
    expectFailure(await as(t, admin).get(`/api/admin/users?${query}`), 400, message)
  })

  it('answers a limit over 100 with 100, and an unknown parameter with a 400', async () => {
    const data = await list('?limit=500')
    expect(data.pagination).toMatchObject({ limit: 100, total: 19, pages: 1 })
    expect(data.users).toHaveLength(19)
    expectFailure(await as(t, admin).get('/api/admin/users?orderBy=password_hash'), 400)
  })

  it('refuses a search too long to mean anything', async () => {
    expectFailure(await as(t, admin).get(`/api/admin/users?search=${'a'.repeat(101)}`), 400, 'Search must be at most 100 characters')
  })
})
