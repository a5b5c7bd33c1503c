import { sql } from 'kysely'
import pg from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'
import { adminRuleMessages } from '~shared/schemas/admin'
import { useTestApp, type SignedIn } from '../support/test-app'
import { onPostgres } from '../support/test-database'
import { as, countWhere, expectFailure, expectSuccess } from './helpers/requests'
import { quickSignIn, quickUser } from './helpers/users'

const UNKNOWN_ID = '2f1b6a3e-7c4d-4e8f-9a0b-1c2d3e4f5a6b'

describe('user management: reading and editing', () => {
  const t = useTestApp()
  let admin: SignedIn
  beforeAll(async () => {
    admin = await quickSignIn(t, { role: 'ADMIN', name: 'Main Admin' })
  })

  it('reads one user by id; anything else is a 404, never a database error', async () => {
    const target = await quickUser(t, { name: 'Read Me' })
    const body = expectSuccess(await as(t, admin).get(`/api/admin/users/${target.id}`))
    expect(body.data).toMatchObject({ id: target.id, name: 'Read Me', email: target.email })
    expect(Object.keys(body.data)).not.toContain('passwordHash')
    for (const id of [UNKNOWN_ID, 'not-a-uuid', '1', "1' OR '1'='1", '%27%3B--', '0'.repeat(150)]) {
      expectFailure(await as(t, admin).get(`/api/admin/users/${id}`), 404)
      expectFailure(await as(t, admin).put(`/api/admin/users/${id}`, { name: 'Nobody Here' }), 404)
      expectFailure(await as(t, admin).delete(`/api/admin/users/${id}`), 404)
    }
  })

  it("refuses an admin's edit of their own account with the spec's message", async () => {
    expectFailure(await as(t, admin).put(`/api/admin/users/${admin.id}`, { name: 'Me Myself' }), 403, adminRuleMessages.noSelfEdit)
    expectFailure(await as(t, admin).put(`/api/admin/users/${admin.id}`, { role: 'CLIENT' }), 403, adminRuleMessages.noSelfEdit)
  })

  it('edits other admins too', async () => {
    const other = await quickUser(t, { role: 'ADMIN', name: 'Other Admin' })
    const body = expectSuccess(await as(t, admin).put(`/api/admin/users/${other.id}`, { name: 'Renamed Admin' }))
    expect(body).toMatchObject({ message: 'User updated successfully', data: { name: 'Renamed Admin', role: 'ADMIN' } })
  })

  it('records a role change with who, whom, where from and what changed', async () => {
    const target = await quickUser(t, { name: 'Role Target' })
    const body = expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { role: 'MODERATOR' }))
    expect(body.data.role).toBe('MODERATOR')
    const entry = await t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', target.id).orderBy('id', 'desc').executeTakeFirstOrThrow()
    expect(entry).toMatchObject({
      kind: 'updated',
      activity: `Changed role of Role Target (${target.email})`,
      details: 'role: CLIENT → MODERATOR',
      actor_id: admin.id,
      ip_address: '127.0.0.1',
    })
  })

  it('records several changes at once in one entry', async () => {
    const target = await quickUser(t, { name: 'Many Changes' })
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { role: 'DEVELOPER', status: 'SUSPENDED', name: 'Many Changed' }))
    const entry = await t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', target.id).orderBy('id', 'desc').executeTakeFirstOrThrow()
    expect(entry.activity).toBe(`Updated user Many Changes (${target.email})`)
    expect(entry.details).toBe('role: CLIENT → DEVELOPER; status: ACTIVE → SUSPENDED; name: Many Changes → Many Changed')
  })

  it('writes nothing for an edit that changes nothing, and refuses an empty one', async () => {
    const target = await quickUser(t, { name: 'Unchanged' })
    const before = await countWhere(t, 'activities', { user_id: target.id })
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { name: 'Unchanged', role: 'CLIENT' }))
    expect(await countWhere(t, 'activities', { user_id: target.id })).toBe(before)
    expectFailure(await as(t, admin).put(`/api/admin/users/${target.id}`, {}), 400, 'Nothing to update')
  })

  it('refuses unknown fields, roles and statuses', async () => {
    const target = await quickUser(t)
    expectFailure(await as(t, admin).put(`/api/admin/users/${target.id}`, { emailVerified: true }), 400)
    expectFailure(await as(t, admin).put(`/api/admin/users/${target.id}`, { password_hash: 'x' }), 400)
    expectFailure(await as(t, admin).put(`/api/admin/users/${target.id}`, { role: 'ROOT' }), 400, 'Unknown role')
    expectFailure(await as(t, admin).put(`/api/admin/users/${target.id}`, { status: 'DELETED' }), 400, 'Unknown status')
    expectFailure(await as(t, admin).put(`/api/admin/users/${target.id}`, { name: 'x' }), 400, 'Name must be at least 2 characters')
  })

  it.each([
    ['role', { role: 'DEVELOPER' }],
    ['status', { status: 'SUSPENDED' }],
    ['status', { status: 'INACTIVE' }],
  ] as const)("takes effect at once: a %s change refuses the target's old access token", async (_field, change) => {
    const target = await quickSignIn(t, { name: 'Token Holder' })
    expect((await as(t, target).get('/api/users/profile')).statusCode).toBe(200)
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, change))
    expectFailure(await as(t, target).get('/api/users/profile'), 401)
    expectFailure(await t.request('POST', '/api/auth/refresh-token', { body: { refreshToken: target.refreshToken } }), 401)
  })

  it('keeps sessions alive on a name change', async () => {
    const target = await quickSignIn(t, { name: 'Keeps Session' })
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { name: 'Still Signed In' }))
    expect((await as(t, target).get('/api/users/profile')).json().data.name).toBe('Still Signed In')
  })

  it('refuses an e-mail address another account has, whatever its case', async () => {
    const taken = await quickUser(t)
    const target = await quickUser(t)
    const response = await as(t, admin).put(`/api/admin/users/${target.id}`, { email: taken.email.toUpperCase() })
    expectFailure(response, 409, adminRuleMessages.emailTaken)
  })

  it('makes a changed e-mail unverified, retires old links and sends a new one to the new address', async () => {
    const target = await quickSignIn(t, { name: 'Moving House' })
    const oldToken = await t.ctx.db
      .insertInto('one_time_tokens')
      .values({
        token_hash: Buffer.alloc(32, 7),
        user_id: target.id,
        purpose: 'verify-email',
        created_at: t.clock.now(),
        expires_at: new Date(t.clock.now().getTime() + 3600_000),
      })
      .returning('token_hash')
      .executeTakeFirstOrThrow()
    const newEmail = `new-${Date.now()}@Example.com`
    const body = expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { email: newEmail }))
    expect(body.data).toMatchObject({ email: newEmail.toLowerCase(), emailVerified: false })

    const old = await t.ctx.db.selectFrom('one_time_tokens').select('used_at').where('token_hash', '=', oldToken.token_hash).executeTakeFirstOrThrow()
    expect(old.used_at).not.toBeNull()
    // Unverified now: the old session no longer passes.
    expectFailure(await as(t, target).get('/api/users/profile'), 401)

    await t.deliverMail()
    const mail = t.outbox().find((m) => m.to === newEmail.toLowerCase())
    expect(mail?.subject).toBe('Verify your email address - Accounts')
    const link = mail!.links.find((l) => l.includes('/verify-email?token='))!
    const token = new URL(link).searchParams.get('token')!
    expectSuccess(await t.request('GET', `/api/auth/verify-email/${token}`))
    expect((await t.login(newEmail.toLowerCase(), target.password)).statusCode).toBe(200)
  })
})

describe('user management: deleting', () => {
  const t = useTestApp()
  let admin: SignedIn
  beforeAll(async () => {
    admin = await quickSignIn(t, { role: 'ADMIN' })
  })

  it("refuses deleting oneself, an admin, or a user who is not inactive, with the spec's messages", async () => {
    expectFailure(await as(t, admin).delete(`/api/admin/users/${admin.id}`), 403, adminRuleMessages.noSelfDelete)
    const otherAdmin = await quickUser(t, { role: 'ADMIN', status: 'INACTIVE' })
    expectFailure(await as(t, admin).delete(`/api/admin/users/${otherAdmin.id}`), 403, adminRuleMessages.noAdminDelete)
    const active = await quickUser(t)
    expectFailure(await as(t, admin).delete(`/api/admin/users/${active.id}`), 409, adminRuleMessages.inactiveBeforeDelete)
    const suspended = await quickUser(t, { status: 'SUSPENDED' })
    expectFailure(await as(t, admin).delete(`/api/admin/users/${suspended.id}`), 409, adminRuleMessages.inactiveBeforeDelete)
    expect(await countWhere(t, 'users', { id: active.id })).toBe(1)
  })

  it('deletes an inactive user; their entries stay with the user shown as unknown; a second delete is a 404', async () => {
    const target = await quickSignIn(t, { name: 'Leaving Soon' })
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { status: 'INACTIVE' }))
    const entriesBefore = await countWhere(t, 'activities', { user_id: target.id })
    expect(entriesBefore).toBeGreaterThan(1)

    const body = expectSuccess(await as(t, admin).delete(`/api/admin/users/${target.id}`))
    expect(body.message).toBe('User deleted successfully')
    expect(await countWhere(t, 'users', { id: target.id })).toBe(0)
    expectFailure(await as(t, admin).delete(`/api/admin/users/${target.id}`), 404)
    expectFailure(await as(t, admin).get(`/api/admin/users/${target.id}`), 404)

    const entry = await t.ctx.db.selectFrom('activities').selectAll().where('activity', '=', `Deleted user Leaving Soon (${target.email})`).executeTakeFirstOrThrow()
    expect(entry).toMatchObject({ kind: 'deleted', user_id: null, actor_id: admin.id })
    // The entry's user is gone; its details say who deleted the account.
    expect(entry.details).toContain(`deleted by `)
    expect(entry.details).toContain(admin.email)

    const logs = expectSuccess(await as(t, admin).get(`/api/admin/activity-logs?search=${encodeURIComponent('Leaving Soon')}`))
    expect(logs.data.activities.length).toBeGreaterThanOrEqual(1)
    for (const shown of logs.data.activities) expect(shown.user).toBeNull()
    // Everything the user did is still there, anonymous.
    expect(await countWhere(t, 'activities', { user_id: null })).toBeGreaterThanOrEqual(entriesBefore + 1)
    expectFailure(await as(t, target).get('/api/users/profile'), 401)
  })

  it('answers two simultaneous deletes of one user with one success and one 404', async () => {
    for (let round = 0; round < 2; round++) {
      const target = await quickUser(t, { status: 'INACTIVE' })
      const answers = await Promise.all([as(t, admin).delete(`/api/admin/users/${target.id}`), as(t, admin).delete(`/api/admin/users/${target.id}`)])
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 404])
      expect(await countWhere(t, 'activities', { activity: `Deleted user Test User (${target.email})` })).toBe(1)
    }
  })
})

describe('at least one active administrator', () => {
  const t = useTestApp()

  const activeAdmins = async () =>
    Number(
      (
        await t.ctx.db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('role', '=', 'ADMIN')
          .where('status', '=', 'ACTIVE')
          .executeTakeFirstOrThrow()
      ).n,
    )

  async function twoLoneAdmins(): Promise<[SignedIn, SignedIn]> {
    // Only these two are active admins.
    await t.ctx.db.updateTable('users').set({ status: 'INACTIVE' }).where('role', '=', 'ADMIN').execute()
    return Promise.all([quickSignIn(t, { role: 'ADMIN', name: 'Admin One' }), quickSignIn(t, { role: 'ADMIN', name: 'Admin Two' })])
  }

  it.each([
    ['demote', { role: 'CLIENT' }],
    ['suspend', { status: 'SUSPENDED' }],
    ['deactivate', { status: 'INACTIVE' }],
  ] as const)('two admins who %s each other at the same instant leave one active admin', async (_verb, change) => {
    for (let round = 0; round < 2; round++) {
      const [a, b] = await twoLoneAdmins()
      const answers = await Promise.all([as(t, a).put(`/api/admin/users/${b.id}`, change), as(t, b).put(`/api/admin/users/${a.id}`, change)])
      const statuses = answers.map((r) => r.statusCode).sort()
      expect(statuses[0]).toBe(200)
      expect([401, 403, 409]).toContain(statuses[1])
      expect(await activeAdmins()).toBe(1)
    }
  })

  it.runIf(onPostgres)('holds when both changes are inside their transactions at once (PostgreSQL)', async () => {
    const [a, b] = await twoLoneAdmins()
    // Hold the lock the changes take, so that both requests are in flight, waiting, before either proceeds.
    const database = (await sql<{ db: string }>`SELECT current_database() AS db`.execute(t.ctx.db)).rows[0]!.db
    const url = new URL(process.env.TEST_DATABASE_URL!)
    url.pathname = `/${database}`
    const holder = new pg.Client({ connectionString: url.toString() })
    await holder.connect()
    try {
      await holder.query('SELECT pg_advisory_lock(72530001)')
      const pending = Promise.all([as(t, a).put(`/api/admin/users/${b.id}`, { role: 'DEVELOPER' }), as(t, b).put(`/api/admin/users/${a.id}`, { role: 'DEVELOPER' })])
      const waiting = async () => Number((await holder.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0].n)
      for (let i = 0; i < 100 && (await waiting()) < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(await waiting()).toBe(2)
      await holder.query('SELECT pg_advisory_unlock(72530001)')
      const statuses = (await pending).map((r) => r.statusCode).sort()
      expect(statuses[0]).toBe(200)
      expect([403, 409]).toContain(statuses[1])
    } finally {
      await holder.end()
    }
    expect(await activeAdmins()).toBe(1)
  })

  it('lets an admin demote another while both stay covered', async () => {
    const [a, b] = await twoLoneAdmins()
    expectSuccess(await as(t, a).put(`/api/admin/users/${b.id}`, { role: 'MODERATOR' }))
    expect(await activeAdmins()).toBe(1)
    // The demoted admin's session is over; the remaining one cannot be edited by anybody but another admin.
    expectFailure(await as(t, b).put(`/api/admin/users/${a.id}`, { role: 'CLIENT' }), 401)
  })
})
