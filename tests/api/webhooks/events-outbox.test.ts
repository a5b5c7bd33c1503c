import { beforeAll, describe, expect, it } from 'vitest'
import { commitChange } from '~server/change'
import { type SignedIn, STRONG_PASSWORD, useTestApp } from '../../support/test-app'
import { as, expectSuccess } from '../helpers/requests'
import { scimCredential, scimRequest } from '../helpers/scim'
import { quickSignIn, quickUser } from '../helpers/users'

/**
 * Every change tells the company's systems what happened through the outbox: its event is written
 * by the change's own transaction (contract section 12), for the product's real calls.
 */
const t = useTestApp()

let admin: SignedIn
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
})

type EventRow = { id: string; type: string; data: any }
const eventsAbout = async (userId: string): Promise<EventRow[]> => {
  const rows = await t.ctx.db.selectFrom('webhook_events').select(['id', 'type', 'data']).orderBy('seq').execute()
  return (rows as EventRow[]).filter((row) => row.data?.user?.id === userId || row.data?.id === userId)
}
const typesAbout = async (userId: string) => (await eventsAbout(userId)).map((event) => event.type)

describe('events written with the change', () => {
  it('records user.created and user.verified for a registration and its link, with the admin view of the user', async () => {
    const email = `outbox-${Date.now()}@example.com`
    expectSuccess(
      await t.request('POST', '/api/auth/register', { body: { name: 'Rita Register', email, password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD } }),
      201,
    )
    await t.deliverMail()
    const mail = t.outbox().find((message) => message.to === email)!
    const token = /token=([^&\s"]+)/.exec(mail.text)![1]!
    expectSuccess(await t.request('GET', `/api/auth/verify-email/${token}`))
    const user = await t.ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()
    const events = await eventsAbout(user.id)
    expect(events.map((event) => event.type)).toEqual(['user.created', 'user.verified'])
    expect(events[0]!.id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/)
    expect(events[0]!.data.user).toEqual({
      id: user.id,
      name: 'Rita Register',
      email,
      phone: null,
      role: 'CLIENT',
      status: 'ACTIVE',
      emailVerified: false,
      profilePicture: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      lastSignInAt: null,
      mfaEnabled: false,
    })
    expect(events[1]!.data.user.emailVerified).toBe(true)
  })

  it('records sign-in with its method, profile changes with the fields, password changes and signing out everywhere', async () => {
    const person = await quickSignIn(t, { name: 'Pat Person' })
    expectSuccess(await as(t, person).put('/api/users/profile', { name: 'Pat Renamed', phone: '+15550001111' }))
    expectSuccess(
      await as(t, person).put('/api/users/change-password', {
        currentPassword: STRONG_PASSWORD,
        newPassword: 'Another-Strong-9-Pass!',
        confirmPassword: 'Another-Strong-9-Pass!',
      }),
    )
    expectSuccess(await as(t, person).post('/api/auth/logout-all', {}))
    const events = await eventsAbout(person.id)
    expect(events.map((event) => event.type)).toEqual(['user.signed_in', 'user.updated', 'user.password_changed', 'user.signed_out_everywhere'])
    expect(events[0]!.data.method).toBe('password')
    // The account as it is after the sign-in, which the session's start recorded.
    const { last_sign_in_at } = await t.ctx.db.selectFrom('users').select('last_sign_in_at').where('id', '=', person.id).executeTakeFirstOrThrow()
    expect(events[0]!.data.user.lastSignInAt).toBe(last_sign_in_at!.toISOString())
    expect(events[1]!.data.changes).toEqual(['name', 'phone'])
    expect(events[1]!.data.user.name).toBe('Pat Renamed')
    const everything = JSON.stringify(events)
    for (const secret of [person.accessToken, person.refreshToken, person.csrfToken, 'password_hash', 'passwordHash', '$argon2']) expect(everything).not.toContain(secret)
  })

  it('records an admin role change, status change and deletion (data { id, email })', async () => {
    const target = await quickUser(t, { name: 'Tom Target' })
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { role: 'MODERATOR' }))
    expectSuccess(await as(t, admin).put(`/api/admin/users/${target.id}`, { status: 'INACTIVE', name: 'Tom Gone' }))
    expectSuccess(await as(t, admin).delete(`/api/admin/users/${target.id}`))
    const events = await eventsAbout(target.id)
    expect(events.map((event) => event.type)).toEqual(['user.role_changed', 'user.status_changed', 'user.updated', 'user.deleted'])
    expect(events[0]!.data).toMatchObject({ from: 'CLIENT', to: 'MODERATOR', user: { role: 'MODERATOR' } })
    expect(events[1]!.data).toMatchObject({ from: 'ACTIVE', to: 'INACTIVE' })
    expect(events[2]!.data.changes).toEqual(['name'])
    expect(events[3]!.data).toEqual({ id: target.id, email: target.email })
  })

  it('records an application registered, changed and deleted, without its secret', async () => {
    const created = expectSuccess(
      await as(t, admin).post('/api/admin/applications', { name: 'Payroll', type: 'confidential', redirectUris: ['https://payroll.example.com/cb'] }),
      201,
    ).data
    expectSuccess(await as(t, admin).put(`/api/admin/applications/${created.application.id}`, { name: 'Payroll 2' }))
    expectSuccess(await as(t, admin).delete(`/api/admin/applications/${created.application.id}`))
    const rows = (await t.ctx.db.selectFrom('webhook_events').select(['type', 'data']).where('type', 'like', 'application.%').orderBy('seq').execute()) as EventRow[]
    expect(rows.map((row) => row.type)).toEqual(['application.created', 'application.updated', 'application.deleted'])
    expect(rows[1]!.data).toMatchObject({ application: { name: 'Payroll 2' }, changes: ['name'] })
    expect(JSON.stringify(rows)).not.toContain(created.clientSecret)
  })

  it('writes nothing for a change that rolls back, even after its event was written', async () => {
    const before = await t.ctx.db
      .selectFrom('webhook_events')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    const target = await quickUser(t)
    await expect(
      commitChange(t.ctx, async (c) => {
        await c.trx.updateTable('users').set({ name: 'Never' }).where('id', '=', target.id).execute()
        await c.emitUser('user.updated', target.id, { changes: ['name'] })
        throw new Error('the change fails after its event')
      }),
    ).rejects.toThrow('the change fails after its event')
    // A refused admin call: deleting an ACTIVE user is a 409, and leaves no user.deleted behind.
    expect((await as(t, admin).delete(`/api/admin/users/${target.id}`)).statusCode).toBe(409)
    const after = await t.ctx.db
      .selectFrom('webhook_events')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
    expect(await typesAbout(target.id)).toEqual([])
  })
})

describe('the events feed for service applications', () => {
  it('opens to an API key of an application with activity:read, and to no other scope', async () => {
    const keyOf = async (scopes: string[]) => {
      const created = expectSuccess(await as(t, admin).post('/api/admin/applications', { name: `Feed reader ${scopes.join(' ')}`, type: 'service', scopes }), 201).data
      return expectSuccess(await as(t, admin).post(`/api/admin/applications/${created.application.id}/keys`, { name: 'Feed' }), 201).data.secret as string
    }
    const reader = await keyOf(['activity:read'])
    const feed = await t.request('GET', '/api/admin/events?limit=5', { headers: { authorization: `Bearer ${reader}` } })
    expect(feed.statusCode, feed.body).toBe(200)
    expect(feed.json().data.events.length).toBeGreaterThan(0)
    const other = await keyOf(['users:read'])
    const refused = await t.request('GET', '/api/admin/events', { headers: { authorization: `Bearer ${other}` } })
    expect(refused.statusCode).toBe(403)
    expect(refused.json().code).toBe('INSUFFICIENT_SCOPE')
  })
})

describe('events of changes a directory makes by SCIM', () => {
  it('records user.created, user.status_changed, user.role_changed and user.deleted', async () => {
    const scim = scimRequest(t, await scimCredential(t, 'Entra ID'))
    const email = `scim-${Date.now()}@example.com`
    const created = await scim.post('/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: email,
      name: { givenName: 'Sid', familyName: 'Scim' },
    })
    expect(created.statusCode, created.body).toBe(201)
    const id = created.json().id as string
    const patched = await scim.patch(`/Users/${id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    })
    expect(patched.statusCode, patched.body).toBe(200)
    const groups = (await scim.get('/Groups')).json().Resources as { id: string; displayName: string }[]
    const moderators = groups.find((group) => group.displayName === 'MODERATOR')!
    const joined = await scim.patch(`/Groups/${moderators.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'add', path: 'members', value: [{ value: id }] }],
    })
    expect(joined.statusCode, joined.body).toBeLessThan(300)
    expect((await scim.delete(`/Users/${id}`)).statusCode).toBe(204)
    const events = await eventsAbout(id)
    expect(events.map((event) => event.type)).toEqual(['user.created', 'user.status_changed', 'user.role_changed', 'user.deleted'])
    expect(events[1]!.data).toMatchObject({ from: 'ACTIVE', to: 'INACTIVE' })
    expect(events[2]!.data).toMatchObject({ from: 'CLIENT', to: 'MODERATOR' })
    expect(events[3]!.data).toEqual({ id, email })
  })
})
