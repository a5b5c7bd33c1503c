import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { useTestApp, STRONG_PASSWORD } from '../support/test-app'
import { as, countWhere, expectFailure, expectSuccess } from './helpers/requests'

const USER_FIELDS = ['createdAt', 'email', 'emailVerified', 'id', 'name', 'phone', 'profilePicture', 'role', 'status', 'updatedAt']

describe('my profile', () => {
  const t = useTestApp()

  const latestActivity = (userId: string) => t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').executeTakeFirstOrThrow()

  it('shows the signed-in user with exactly the spec fields', async () => {
    const user = await t.signIn({ name: 'Ada Lovelace' })
    const body = expectSuccess(await as(t, user).get('/api/users/profile'))
    expect(Object.keys(body.data).sort()).toEqual(USER_FIELDS)
    expect(body.data).toMatchObject({ id: user.id, email: user.email, name: 'Ada Lovelace', role: 'CLIENT', status: 'ACTIVE', emailVerified: true })
  })

  it('asks anonymous callers to sign in', async () => {
    expectFailure(await t.request('GET', '/api/users/profile'), 401)
  })

  it('changes name and phone, and records who changed what from where', async () => {
    const user = await t.signIn({ name: 'Grace Hopper' })
    const body = expectSuccess(await as(t, user).put('/api/users/profile', { name: '  Grace B. Hopper ', phone: '+1 (555) 010-2030' }))
    expect(body.message).toBe('Profile updated successfully')
    expect(body.data).toMatchObject({ name: 'Grace B. Hopper', phone: '+1 (555) 010-2030' })

    const entry = await latestActivity(user.id)
    expect(entry).toMatchObject({
      kind: 'updated',
      activity: 'Updated profile',
      details: 'name: Grace Hopper → Grace B. Hopper; phone changed',
      actor_id: user.id,
      ip_address: '127.0.0.1',
    })
    // Phone numbers stay out of the log that staff read.
    expect(entry.details).not.toContain('555')

    const cleared = expectSuccess(await as(t, user).put('/api/users/profile', { phone: '' }))
    expect(cleared.data.phone).toBeNull()
  })

  it('writes nothing when nothing changes', async () => {
    const user = await t.signIn({ name: 'Same Name' })
    const before = await countWhere(t, 'activities', { user_id: user.id })
    expectSuccess(await as(t, user).put('/api/users/profile', { name: 'Same Name' }))
    expectSuccess(await as(t, user).put('/api/users/profile', {}))
    expect(await countWhere(t, 'activities', { user_id: user.id })).toBe(before)
  })

  it("refuses names outside the spec's length with its messages", async () => {
    const user = await t.signIn()
    const short = expectFailure(await as(t, user).put('/api/users/profile', { name: 'A' }), 400, 'Name must be at least 2 characters')
    expect(short.errors).toEqual([{ field: 'name', message: 'Name must be at least 2 characters' }])
    expectFailure(await as(t, user).put('/api/users/profile', { name: 'x'.repeat(51) }), 400, 'Name must be less than 50 characters')
  })

  it.each([
    ['role', { role: 'ADMIN' }],
    ['status', { status: 'SUSPENDED' }],
    ['emailVerified', { emailVerified: false }],
    ['id', { id: '00000000-0000-4000-8000-000000000000' }],
    ['email', { email: 'someone-else@example.com' }],
    ['profilePicture', { profilePicture: 'http://evil.example/x.png' }],
  ])('refuses %s in a profile update, and changes nothing', async (field, extra) => {
    const user = await t.signIn({ name: 'Mass Assign' })
    const before = await t.ctx.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow()
    const activitiesBefore = await countWhere(t, 'activities', { user_id: user.id })
    const body = expectFailure(await as(t, user).put('/api/users/profile', { name: 'Changed Name', ...extra }), 400)
    expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]))
    const after = await t.ctx.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow()
    expect(after).toEqual(before)
    expect(await countWhere(t, 'activities', { user_id: user.id })).toBe(activitiesBefore)
  })

  it('refuses an update without the CSRF token', async () => {
    const user = await t.signIn()
    const response = await t.request('PUT', '/api/users/profile', { token: user.accessToken, body: { name: 'No Csrf' } })
    expectFailure(response, 403)
  })

  it('never leaves a change without its activity entry, nor the reverse', async () => {
    const user = await t.signIn({ name: 'Atomic Alice' })
    // The activity entry cannot be written: the whole change must roll back.
    await sql`
      CREATE FUNCTION refuse_profile_entries() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'activity log unavailable'; END $$;
      CREATE TRIGGER refuse_profile_entries BEFORE INSERT ON activities
        FOR EACH ROW WHEN (NEW.activity = 'Updated profile') EXECUTE FUNCTION refuse_profile_entries();
    `.execute(t.ctx.db)
    try {
      const response = await as(t, user).put('/api/users/profile', { name: 'Half Changed' })
      expectFailure(response, 500, 'Internal server error')
      expect(response.body).not.toContain('activity log unavailable')
    } finally {
      await sql`DROP TRIGGER refuse_profile_entries ON activities; DROP FUNCTION refuse_profile_entries();`.execute(t.ctx.db)
    }
    const row = await t.ctx.db.selectFrom('users').select('name').where('id', '=', user.id).executeTakeFirstOrThrow()
    expect(row.name).toBe('Atomic Alice')
    expect(await countWhere(t, 'activities', { user_id: user.id, activity: 'Updated profile' })).toBe(0)

    // And once the log works again, both are written.
    expectSuccess(await as(t, user).put('/api/users/profile', { name: 'Whole Change' }))
    expect(await countWhere(t, 'activities', { user_id: user.id, activity: 'Updated profile' })).toBe(1)
  })
})

describe('changing my password', () => {
  const t = useTestApp()

  const NEW_PASSWORD = 'Tangerine-Kettle-42%'
  const change = (currentPassword: string, newPassword = NEW_PASSWORD, confirmPassword = newPassword) => ({
    currentPassword,
    newPassword,
    confirmPassword,
  })

  it('refuses a wrong current password with the contract message', async () => {
    const user = await t.signIn()
    const body = expectFailure(await as(t, user).put('/api/users/change-password', change('Not-The-Password-1!')), 400, 'Current password is incorrect')
    expect(body.errors).toEqual([{ field: 'currentPassword', message: 'Current password is incorrect' }])
    expect((await t.login(user.email, STRONG_PASSWORD)).statusCode).toBe(200)
  })

  it('applies the new-password policy, including the blocklist and the e-mail name', async () => {
    const user = await t.signIn({ email: `marguerite.perey-${Date.now()}@example.com` })
    const api = as(t, user)
    expectFailure(await api.put('/api/users/change-password', change(STRONG_PASSWORD, 'short1!')), 400, 'Password must be at least 8 characters')
    expectFailure(
      await api.put('/api/users/change-password', change(STRONG_PASSWORD, 'alllowercase1!')),
      400,
      'Password must contain at least one uppercase letter, one lowercase letter, one number, and one special character',
    )
    expectFailure(await api.put('/api/users/change-password', change(STRONG_PASSWORD, 'Password1!')), 400)
    const withName = expectFailure(await api.put('/api/users/change-password', change(STRONG_PASSWORD, 'Marguerite-2024!')), 400)
    expect(withName.errors?.[0]?.field).toBe('newPassword')
    const mismatch = expectFailure(await api.put('/api/users/change-password', change(STRONG_PASSWORD, NEW_PASSWORD, 'Something-Else-9!')), 400)
    expect(mismatch.errors).toEqual([{ field: 'confirmPassword', message: "Passwords don't match" }])
    expectFailure(await api.put('/api/users/change-password', { newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }), 400, 'Current password is required')
  })

  it('ends my other sessions, keeps this one, records it and e-mails me', async () => {
    const user = await t.signIn()
    const other = (await t.login(user.email, STRONG_PASSWORD)).json().data
    const body = expectSuccess(await as(t, user).put('/api/users/change-password', change(STRONG_PASSWORD)))
    expect(body.message).toBe('Password changed successfully')

    expect((await as(t, user).get('/api/users/profile')).statusCode).toBe(200)
    expect((await t.request('GET', '/api/users/profile', { token: other.accessToken })).statusCode).toBe(401)
    expect((await t.request('POST', '/api/auth/refresh-token', { body: { refreshToken: other.refreshToken } })).statusCode).toBe(401)

    expect((await t.login(user.email, STRONG_PASSWORD)).statusCode).toBe(401)
    expect((await t.login(user.email, NEW_PASSWORD)).statusCode).toBe(200)

    const entry = await t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', user.id).where('activity', '=', 'Changed password').executeTakeFirstOrThrow()
    expect(entry).toMatchObject({ kind: 'updated', actor_id: user.id })

    await t.deliverMail()
    const mail = t.outbox().find((m) => m.to === user.email && m.subject === 'Your password was changed - Accounts')
    expect(mail).toBeDefined()
    expect(mail!.text).not.toContain(NEW_PASSWORD)
  })
})
