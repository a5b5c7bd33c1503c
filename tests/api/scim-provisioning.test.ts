import { beforeAll, describe, expect, it } from 'vitest'
import { STRONG_PASSWORD, useTestApp } from '../support/test-app'
import { quickSignIn, quickUser } from './helpers/users'
import { scimCredential, scimRequest } from './helpers/scim'

/**
 * Provisioning by SCIM 2.0 (contract section 13) as Entra ID and Okta do it, request by request
 * with the bodies they send: create, find by filter, update, deactivate, reactivate, delete, and
 * group membership; the leaver's access cut at the next request; and bad input of every shape
 * answered with SCIM errors, never a 5xx, nothing changed.
 */
const t = useTestApp()

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'

let entra: string
let okta: string
let scim: ReturnType<typeof scimRequest>
let viaOkta: ReturnType<typeof scimRequest>

beforeAll(async () => {
  entra = await scimCredential(t, 'Entra ID')
  okta = await scimCredential(t, 'Okta')
  scim = scimRequest(t, entra)
  viaOkta = scimRequest(t, okta)
})

const accountOf = (id: string) =>
  t.ctx.db.selectFrom('users').select(['id', 'name', 'email', 'role', 'status', 'email_verified_at', 'phone']).where('id', '=', id).executeTakeFirst()
const entriesOf = (id: string) => t.ctx.db.selectFrom('activities').select(['activity', 'details', 'kind']).where('user_id', '=', id).orderBy('id').execute()

function expectScimError(response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number, scimType?: string) {
  expect(response.statusCode).toBe(status)
  expect(response.headers['content-type']).toBe('application/scim+json; charset=utf-8')
  const body = response.json() as Record<string, unknown>
  expect(body.schemas).toEqual([ERROR])
  expect(body.status).toBe(String(status))
  if (scimType) expect(body.scimType).toBe(scimType)
  else expect(body).not.toHaveProperty('scimType')
}

describe("Entra ID's provisioning cycle", () => {
  const suffix = Math.random().toString(36).slice(2, 10)
  const userName = `Test_User_${suffix}@contoso.com`
  let id: string

  it('finds nobody, creates the person, and finds them by userName and externalId', async () => {
    const none = await scim.get(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)
    expect(none.statusCode).toBe(200)
    expect(none.json()).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] })

    const created = await scim.post('/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: `ext-${suffix}`,
      userName,
      active: true,
      emails: [{ primary: true, type: 'work', value: `Test_User_${suffix}@contoso.com` }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Jane Doe', familyName: 'Doe', givenName: 'Jane' },
      roles: [],
      [ENTERPRISE]: { department: 'Finance', manager: { value: 'm-1' } },
    })
    expect(created.statusCode).toBe(201)
    const user = created.json()
    id = user.id
    expect(created.headers.location).toBe(`${t.config.appUrl}/scim/v2/Users/${id}`)
    expect(user).toMatchObject({
      schemas: [USER],
      externalId: `ext-${suffix}`,
      userName,
      name: { formatted: 'Jane Doe', givenName: 'Jane', familyName: 'Doe' },
      active: true,
      emails: [{ value: userName.toLowerCase(), type: 'work', primary: true }],
      roles: [{ value: 'CLIENT', primary: true }],
      meta: { resourceType: 'User', location: created.headers.location },
    })
    expect(await accountOf(id)).toMatchObject({ name: 'Jane Doe', email: userName.toLowerCase(), role: 'CLIENT', status: 'ACTIVE', email_verified_at: expect.any(Date) })
    expect(await entriesOf(id)).toEqual([{ activity: 'Created by SCIM (Entra ID)', details: 'role: CLIENT; status: ACTIVE', kind: 'registered' }])
    // The application is the actor, as the logs show it ("by Entra ID").
    const actor = await t.ctx.db.selectFrom('activities').select(['actor_id', 'actor_name']).where('user_id', '=', id).executeTakeFirstOrThrow()
    expect(actor).toEqual({ actor_id: null, actor_name: 'Entra ID' })

    for (const filter of [`userName eq "${userName.toUpperCase()}"`, `externalId eq "ext-${suffix}"`, `emails[type eq "work"].value eq "${userName}"`]) {
      const found = (await scim.get(`/Users?filter=${encodeURIComponent(filter)}`)).json()
      expect(found).toMatchObject({ totalResults: 1, Resources: [{ id }] })
    }
    expect((await scim.get(`/Users/${id}`)).json()).toEqual(user)
  })

  it('updates the address and the family name with filtered paths and "Replace"', async () => {
    const response = await scim.patch(`/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: `updated_${suffix}@contoso.com` },
        { op: 'Replace', path: 'name.familyName', value: 'Smith' },
        { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber', value: '701984' },
      ],
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ name: { formatted: 'Jane Smith', familyName: 'Smith' }, emails: [{ value: `updated_${suffix}@contoso.com` }] })
    // The directory vouches for the new address: it stays verified.
    expect(await accountOf(id)).toMatchObject({ name: 'Jane Smith', email: `updated_${suffix}@contoso.com`, email_verified_at: expect.any(Date) })
  })

  it('deactivates with active "False", reactivates with "True"', async () => {
    const off = await scim.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] })
    expect(off.json()).toMatchObject({ active: false })
    expect((await accountOf(id))?.status).toBe('INACTIVE')
    const on = await scim.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] })
    expect(on.json()).toMatchObject({ active: true })
    expect((await accountOf(id))?.status).toBe('ACTIVE')
    const entries = await entriesOf(id)
    expect(entries.slice(-2).map((entry) => entry.details)).toEqual(['status: ACTIVE → INACTIVE; by SCIM (Entra ID)', 'status: INACTIVE → ACTIVE; by SCIM (Entra ID)'])
  })

  it('gives a role by group membership, checks it by filter, and takes it back', async () => {
    const groups = (await scim.get(`/Groups?filter=${encodeURIComponent('displayName eq "DEVELOPER"')}&excludedAttributes=members`)).json()
    expect(groups).toMatchObject({ totalResults: 1, Resources: [{ id: 'DEVELOPER', displayName: 'DEVELOPER' }] })
    expect(groups.Resources[0]).not.toHaveProperty('members')

    const added = await scim.patch('/Groups/DEVELOPER', { schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'members', value: [{ value: id }] }] })
    expect(added.statusCode).toBe(204)
    expect((await accountOf(id))?.role).toBe('DEVELOPER')
    const member = (await scim.get(`/Groups?filter=${encodeURIComponent(`id eq "DEVELOPER" and members[value eq "${id}"]`)}&excludedAttributes=members`)).json()
    expect(member.totalResults).toBe(1)
    expect((await scim.get(`/Users/${id}`)).json().groups).toEqual([{ value: 'DEVELOPER', display: 'DEVELOPER', $ref: `${t.config.appUrl}/scim/v2/Groups/DEVELOPER` }])
    expect((await scim.get('/Groups/DEVELOPER')).json().members).toContainEqual({
      value: id,
      display: 'Jane Smith',
      type: 'User',
      $ref: `${t.config.appUrl}/scim/v2/Users/${id}`,
    })

    const removed = await scim.patch('/Groups/DEVELOPER', { schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: `members[value eq "${id}"]` }] })
    expect(removed.statusCode).toBe(204)
    expect((await accountOf(id))?.role).toBe('CLIENT')
    expect((await entriesOf(id)).slice(-2).map((entry) => entry.details)).toEqual([
      'role: CLIENT → DEVELOPER; by SCIM (Entra ID)',
      'role: DEVELOPER → CLIENT; by SCIM (Entra ID)',
    ])
  })

  it('deletes the person: 204, and the account is gone, its entries kept', async () => {
    const response = await scim.delete(`/Users/${id}`)
    expect(response.statusCode).toBe(204)
    expect(await accountOf(id)).toBeUndefined()
    expectScimError(await scim.get(`/Users/${id}`), 404)
    expectScimError(await scim.delete(`/Users/${id}`), 404)
    const kept = await t.ctx.db.selectFrom('activities').select('details').where('activity', '=', `Deleted user Jane Smith (updated_${suffix}@contoso.com)`).execute()
    expect(kept).toEqual([{ details: 'role: CLIENT; status: ACTIVE → INACTIVE; deleted by SCIM (Entra ID)' }])

    // Each change sent its event (contract section 12), in order.
    const events = await t.ctx.db.selectFrom('webhook_events').select(['type', 'data']).orderBy('seq').execute()
    const about = events.filter((event) => JSON.stringify(event.data).includes(id)).map((event) => event.type)
    expect(about).toEqual(['user.created', 'user.updated', 'user.status_changed', 'user.status_changed', 'user.role_changed', 'user.role_changed', 'user.deleted'])
  })
})

describe("Okta's provisioning cycle", () => {
  const suffix = Math.random().toString(36).slice(2, 10)
  const email = `jane.${suffix}@example.com`
  let id: string

  it('creates with a password it never keeps, and reads the person back', async () => {
    const search = await viaOkta.get(`/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}&startIndex=1&count=100`)
    expect(search.json()).toMatchObject({ totalResults: 0, Resources: [] })
    const created = await viaOkta.post('/Users', {
      schemas: [USER],
      userName: email,
      name: { givenName: 'Jane', familyName: 'Doe' },
      emails: [{ primary: true, value: email, type: 'work' }],
      displayName: 'Jane Doe',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    })
    expect(created.statusCode).toBe(201)
    id = created.json().id
    const row = await t.ctx.db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirstOrThrow()
    expect(await t.ctx.hasher.verify(row.password_hash, '1mz050nq')).toBe(false)
    expect(await entriesOf(id)).toMatchObject([{ activity: 'Created by SCIM (Okta)' }])
  })

  it('replaces the profile with PUT, deactivates and reactivates with replace of { active }', async () => {
    const current = (await viaOkta.get(`/Users/${id}`)).json()
    const put = await viaOkta.put(`/Users/${id}`, {
      ...current,
      name: { givenName: 'Janet', familyName: 'Doe' },
      phoneNumbers: [{ value: '+1 555 0100', type: 'mobile' }],
    })
    expect(put.statusCode).toBe(200)
    expect(await accountOf(id)).toMatchObject({ name: 'Janet Doe', phone: '+1 555 0100', status: 'ACTIVE' })
    const off = await viaOkta.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] })
    expect(off.json().active).toBe(false)
    const on = await viaOkta.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] })
    expect(on.json().active).toBe(true)
  })

  it('pushes a group: the same name is no change, members added and removed; creating or renaming one is refused', async () => {
    expect(
      (await viaOkta.patch('/Groups/MODERATOR', { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { id: 'MODERATOR', displayName: 'MODERATOR' } }] }))
        .statusCode,
    ).toBe(204)
    await viaOkta.patch('/Groups/MODERATOR', { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: id, display: email }] }] })
    expect((await accountOf(id))?.role).toBe('MODERATOR')
    await viaOkta.patch('/Groups/MODERATOR', { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }] })
    expect((await accountOf(id))?.role).toBe('CLIENT')

    expectScimError(await viaOkta.post('/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Engineering', members: [] }), 403)
    expectScimError(
      await viaOkta.patch('/Groups/MODERATOR', { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { id: 'MODERATOR', displayName: 'Moderators' } }] }),
      403,
    )
    expectScimError(await viaOkta.delete('/Groups/MODERATOR'), 403)
    expectScimError(await viaOkta.put('/Groups/MODERATOR', { displayName: 'MODERATOR' }), 403)
  })
})

describe('a reconciliation read', () => {
  it('pages through every account once, 3 at a time, the total from the counters', async () => {
    const all = await t.ctx.db.selectFrom('users').select('id').orderBy('id').execute()
    const seen: string[] = []
    for (let startIndex = 1; ; startIndex += 3) {
      const page = (await scim.get(`/Users?startIndex=${startIndex}&count=3&attributes=id`)).json()
      expect(page.totalResults).toBe(all.length)
      seen.push(...page.Resources.map((user: { id: string }) => user.id))
      if (page.Resources.length < 3) break
    }
    expect(seen).toEqual(all.map((row) => row.id))
    // A page asked for out of order is read by skipping, with the same answer.
    const third = (await scim.get('/Users?startIndex=7&count=3&attributes=id')).json()
    expect(third.Resources.map((user: { id: string }) => user.id)).toEqual(seen.slice(6, 9))
  })
})

describe('a leaver', () => {
  it('loses every session at the next request when the directory sets active to false', async () => {
    const created = (await scim.post('/Users', { userName: `leaver-${Date.now()}@contoso.com`, name: { givenName: 'Lee', familyName: 'Ver' } })).json()
    // A password of their own, set through "Forgot password" in real life.
    await t.ctx.db
      .updateTable('users')
      .set({ password_hash: await t.ctx.hasher.hash(STRONG_PASSWORD) })
      .where('id', '=', created.id)
      .execute()
    const login = await t.login(created.emails[0].value, STRONG_PASSWORD)
    expect(login.statusCode).toBe(200)
    const token = login.json().data.accessToken as string
    expect((await t.request('GET', '/api/auth/me', { token })).statusCode).toBe(200)

    await scim.patch(`/Users/${created.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: false }] })
    expect((await t.request('GET', '/api/auth/me', { token })).statusCode).toBe(401)
    const sessions = await t.ctx.db.selectFrom('sessions').select(['revoked_at', 'revoked_reason']).where('user_id', '=', created.id).execute()
    expect(sessions).toEqual([{ revoked_at: expect.any(Date), revoked_reason: 'changed by SCIM (Entra ID): status' }])
  })
})

describe('the last active administrator', () => {
  it('is never taken away by a deactivation, a group removal or a delete', async () => {
    // Every other active admin is made inactive for this test, then given back.
    const others = await t.ctx.db.selectFrom('users').select('id').where('role', '=', 'ADMIN').where('status', '=', 'ACTIVE').execute()
    const admin = await quickUser(t, { role: 'ADMIN', name: 'Last Admin' })
    await t.ctx.db
      .updateTable('users')
      .set({ status: 'INACTIVE' })
      .where('id', 'in', others.length > 0 ? others.map((row) => row.id) : [admin.id])
      .where('id', '!=', admin.id)
      .execute()
    try {
      expectScimError(await scim.patch(`/Users/${admin.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }), 403)
      expectScimError(await scim.patch('/Groups/ADMIN', { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${admin.id}"]` }] }), 403)
      expectScimError(await scim.patch('/Groups/CLIENT', { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: admin.id }] }] }), 403)
      expectScimError(await scim.delete(`/Users/${admin.id}`), 403)
      expect(await accountOf(admin.id)).toMatchObject({ role: 'ADMIN', status: 'ACTIVE' })
    } finally {
      if (others.length > 0)
        await t.ctx.db
          .updateTable('users')
          .set({ status: 'ACTIVE' })
          .where(
            'id',
            'in',
            others.map((row) => row.id),
          )
          .execute()
    }
  })
})

describe('bad input', () => {
  it('refuses a missing, wrong or scope-less credential, and a person’s own token, with a SCIM 401', async () => {
    const person = await quickSignIn(t, { role: 'ADMIN' })
    const scopeless = await scimCredential(t, 'Scripts', ['users:read'])
    for (const authorization of [undefined, 'Bearer nonsense', 'Basic dXNlcjpwYXNz', `Bearer ${person.accessToken}`, `Bearer ${scopeless}`]) {
      const response = await t.request('GET', '/scim/v2/Users', { headers: authorization ? { authorization } : {} })
      expectScimError(response, 401)
    }
  })

  it('answers malformed bodies, filters, paths and values with SCIM 400s, changing nothing', async () => {
    const before = await t.ctx.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    const raw = (payload: string, contentType = 'application/scim+json') =>
      t.request('POST', '/scim/v2/Users', { payload, headers: { authorization: `Bearer ${entra}`, 'content-type': contentType } })
    expectScimError(await raw('{"userName": '), 400, 'invalidSyntax')
    expectScimError(await raw('{"__proto__": {"admin": true}, "userName": "p@example.com"}'), 400, 'invalidSyntax')
    expectScimError(await raw('[]'), 400, 'invalidSyntax')
    expectScimError(await raw('userName=x', 'application/x-www-form-urlencoded'), 415)
    expectScimError(await scim.post('/Users', { userName: 'not-an-address' }), 400, 'invalidValue')
    expectScimError(await scim.post('/Users', { userName: 'pаypal@example.com' }), 400, 'invalidValue')
    expectScimError(await scim.post('/Users', { userName: 'x@example.com', name: { givenName: 'A\u0000' } }), 400, 'invalidValue')
    expectScimError(await scim.get(`/Users?filter=${encodeURIComponent('title eq "x"')}`), 400, 'invalidFilter')
    expectScimError(await scim.get(`/Users?filter=${encodeURIComponent('userName eq')}`), 400, 'invalidFilter')
    expectScimError(await scim.get('/Users?filter=a&filter=b'), 400, 'invalidFilter')
    expectScimError(await scim.get('/Users?count=201'), 400, 'tooMany')
    expectScimError(await scim.get('/Users?startIndex=abc'), 400, 'invalidValue')
    expectScimError(await scim.get('/Groups?filter=members.value%20co%20%22x%22'), 400, 'invalidFilter')
    expectScimError(await scim.patch('/Groups/ADMINS', { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [] }] }), 404)
    expectScimError(
      await scim.patch('/Groups/DEVELOPER', { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: 'nobody' }] }] }),
      400,
      'invalidValue',
    )
    const someone = (await scim.post('/Users', { userName: `someone-${Date.now()}@example.com` })).json()
    expectScimError(await scim.patch(`/Users/${someone.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'nickNames', value: 'x' }] }), 400, 'invalidPath')
    expectScimError(
      await scim.patch(`/Users/${someone.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'roles', value: [{ value: 'ADMIN' }] }] }),
      400,
      'mutability',
    )
    expectScimError(await scim.patch(`/Users/${someone.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }), 400, 'noTarget')
    expectScimError(await scim.patch('/Users/not-a-uuid', { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }), 404)
    expect((await accountOf(someone.id))?.role).toBe('CLIENT')
    const after = await t.ctx.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(after.n)).toBe(Number(before.n) + 1)
  })

  it('refuses a userName or an address another account has, without regard to case, with 409 uniqueness', async () => {
    const existing = await quickUser(t)
    expectScimError(await scim.post('/Users', { userName: existing.email.toUpperCase() }), 409, 'uniqueness')
    expectScimError(await scim.post('/Users', { userName: `other-${Date.now()}`, emails: [{ value: existing.email, primary: true }] }), 409, 'uniqueness')
    const a = (await scim.post('/Users', { userName: `A-${Date.now()}@Example.com` })).json()
    expectScimError(
      await scim.post('/Users', { userName: a.userName.toLowerCase(), emails: [{ value: `b-${Date.now()}@example.com`, primary: true }] }),
      409,
      'uniqueness',
    )
    const b = (await scim.post('/Users', { userName: `b2-${Date.now()}@example.com` })).json()
    expectScimError(await scim.patch(`/Users/${b.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: a.userName }] }), 409, 'uniqueness')
  })

  it('finds nobody for an unknown user, quotes and wildcards searched for, never a 5xx', async () => {
    for (const filter of [
      'userName eq "nobody@nowhere.example"',
      `userName eq "x' OR 1=1 --"`,
      'emails.value co "%_%\\\\"',
      'id eq "00000000-0000-0000-0000-000000000000"',
    ]) {
      const response = await scim.get(`/Users?filter=${encodeURIComponent(filter)}`)
      expect(response.statusCode).toBe(200)
      expect(response.json().totalResults).toBe(0)
    }
  })
})
