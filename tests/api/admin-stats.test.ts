import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, type SignedIn } from '../support/test-app'
import { as, expectSuccess } from './helpers/requests'
import { quickUser } from './helpers/users'

describe('admin statistics', () => {
  const t = useTestApp()
  let admin: SignedIn
  beforeAll(async () => {
    admin = await t.signIn({ role: 'ADMIN' })
    await Promise.all([
      quickUser(t, { role: 'DEVELOPER' }),
      quickUser(t, { role: 'DEVELOPER', status: 'SUSPENDED' }),
      quickUser(t, { role: 'MODERATOR', status: 'INACTIVE' }),
      quickUser(t, { role: 'CLIENT' }),
      quickUser(t, { role: 'CLIENT', status: 'INACTIVE' }),
      quickUser(t, { role: 'CLIENT', status: 'SUSPENDED' }),
      quickUser(t, { role: 'ADMIN', status: 'SUSPENDED' }),
    ])
  })

  const stats = async () => expectSuccess(await as(t, admin).get('/api/admin/stats')).data

  /** The numbers counted the slow way, straight from the users table. */
  async function counted() {
    const rows = await t.ctx.db
      .selectFrom('users')
      .select(['role', 'status', 'mfa_enabled', (eb) => eb('email_verified_at', 'is not', null).as('verified'), (eb) => eb.fn.countAll<string>().as('n')])
      .groupBy(['role', 'status', 'mfa_enabled', 'verified'])
      .execute()
    type Row = (typeof rows)[number]
    const sum = (match: (r: Row) => boolean) => rows.filter(match).reduce((n, r) => n + Number(r.n), 0)
    return {
      totalUsers: sum(() => true),
      byStatus: {
        active: sum((r) => r.status === 'ACTIVE'),
        inactive: sum((r) => r.status !== 'ACTIVE'),
        suspended: sum((r) => r.status === 'SUSPENDED'),
      },
      byRole: {
        admins: sum((r) => r.role === 'ADMIN'),
        developers: sum((r) => r.role === 'DEVELOPER'),
        moderators: sum((r) => r.role === 'MODERATOR'),
        clients: sum((r) => r.role === 'CLIENT'),
      },
      unverified: sum((r) => !r.verified),
      mfaEnabled: sum((r) => r.mfa_enabled),
    }
  }

  it('counts users by status and role; "inactive" includes suspended accounts, as the dashboard card does', async () => {
    const data = await stats()
    expect(data.stats).toEqual(await counted())
    expect(data.stats).toMatchObject({
      totalUsers: 8,
      byStatus: { active: 3, inactive: 5, suspended: 3 },
      byRole: { admins: 2, developers: 2, moderators: 1, clients: 3 },
    })
  })

  it('follows every change: role and status edits, registrations and deletions', async () => {
    const target = await quickUser(t, { role: 'CLIENT', status: 'INACTIVE' })
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { role: 'MODERATOR', status: 'SUSPENDED' }))
    expect((await stats()).stats).toEqual(await counted())
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { status: 'INACTIVE' }))
    expectSuccess(await as(t, admin).delete(`/api/admin/users/${target.id}`))
    expect((await stats()).stats).toEqual(await counted())
    const registered = await t.request('POST', '/api/auth/register', {
      body: { name: 'New Person', email: `new-${Date.now()}@example.com`, password: 'Orchid-Lantern-58!', confirmPassword: 'Orchid-Lantern-58!' },
    })
    expect(registered.statusCode).toBe(201)
    expect((await stats()).stats).toEqual(await counted())
  })

  it('lists recent activity newest first, more than five so the dashboard can offer "View All Activities"', async () => {
    const data = await stats()
    expect(data.recentActivities.length).toBeGreaterThanOrEqual(6)
    const newest = await t.ctx.db.selectFrom('activities').select('id').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(6).execute()
    expect(data.recentActivities.slice(0, 6).map((e: { id: string }) => e.id)).toEqual(newest.map((row) => String(row.id)))
    for (const entry of data.recentActivities) {
      const extra = [...(entry.actor ? ['actor'] : []), ...(entry.changes ? ['changes'] : [])]
      expect(Object.keys(entry).sort()).toEqual(['activity', 'createdAt', 'details', 'id', 'ipAddress', 'user', ...extra].sort())
    }
  })
})
