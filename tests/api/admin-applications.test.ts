import { beforeAll, describe, expect, it } from 'vitest'
import { applicationMessages } from '~shared/schemas/applications'
import { hashClientSecret } from '~server/data/applications/applications'
import { type SignedIn, useTestApp } from '../support/test-app'
import { as, expectFailure, expectSuccess } from './helpers/requests'
import { quickSignIn } from './helpers/users'

const t = useTestApp()

let admin: SignedIn
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
})

const WIKI = {
  name: 'Team Wiki',
  type: 'confidential',
  redirectUris: ['https://wiki.example.com/callback'],
  postLogoutRedirectUris: ['https://wiki.example.com/'],
  backchannelLogoutUri: 'https://wiki.example.com/backchannel-logout',
  allowedRoles: ['ADMIN', 'DEVELOPER'],
  firstParty: true,
}

const create = (body: Record<string, unknown>) => as(t, admin).post('/api/admin/applications', body)
const edit = (id: string, body: Record<string, unknown>) => as(t, admin).put(`/api/admin/applications/${id}`, body)
const secretHashOf = async (id: string) =>
  (await t.ctx.db.selectFrom('oidc_applications').select('secret_hash').where('id', '=', id).executeTakeFirstOrThrow()).secret_hash
const entriesAbout = (id: string) =>
  t.ctx.db.selectFrom('activities').selectAll().where('kind', '=', 'applications').where('details', 'like', `%${id}%`).orderBy('id').execute()

async function createWiki(overrides: Record<string, unknown> = {}) {
  const body = expectSuccess(await create({ ...WIKI, ...overrides }), 201)
  return body.data as { application: { id: string; name: string; type: string }; clientSecret?: string }
}

/** Rows the protocol engine would have stored for the application. */
async function payloadsFor(clientId: string, models: string[]) {
  for (const model of models) {
    await t.ctx.db
      .insertInto('oidc_payloads')
      .values({ model, id: `${model}-${clientId}`, payload: JSON.stringify({ clientId }), client_id: clientId, grant_id: `grant-${clientId}` })
      .execute()
  }
}
const modelsLeft = async (clientId: string) =>
  (await t.ctx.db.selectFrom('oidc_payloads').select('model').where('client_id', '=', clientId).orderBy('model').execute()).map((row) => row.model)

describe('registering an application', () => {
  it('gives a confidential application a client id and a 256-bit secret, shown once and kept only as its SHA-256', async () => {
    const { application, clientSecret } = await createWiki()
    expect(application).toEqual({
      id: expect.stringMatching(/^app_[A-Za-z0-9_-]{22}$/),
      name: 'Team Wiki',
      type: 'confidential',
      redirectUris: ['https://wiki.example.com/callback'],
      postLogoutRedirectUris: ['https://wiki.example.com/'],
      backchannelLogoutUri: 'https://wiki.example.com/backchannel-logout',
      allowedRoles: ['ADMIN', 'DEVELOPER'],
      firstParty: true,
      deviceFlow: false,
      enabled: true,
      scopes: [],
      jwks: null,
      createdAt: t.clock.now().toISOString(),
      updatedAt: t.clock.now().toISOString(),
    })
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(clientSecret!, 'base64url')).toHaveLength(32)
    expect(await secretHashOf(application.id)).toEqual(hashClientSecret(clientSecret!))

    // Never shown again: not by the list, not by the application itself.
    const one = expectSuccess(await as(t, admin).get(`/api/admin/applications/${application.id}`))
    expect(one.data).toEqual({ application })
    const list = await as(t, admin).get('/api/admin/applications')
    expect(list.body).not.toContain(clientSecret!)
    expect(list.body).not.toContain('secret')
  })

  it('gives a public application no secret, and takes the defaults for what is left out', async () => {
    const { application, clientSecret } = await createWiki({
      name: 'Phone App',
      type: 'public',
      redirectUris: ['http://127.0.0.1:8123/callback', 'http://[::1]/cb', 'http://localhost:3000/cb'],
      postLogoutRedirectUris: undefined,
      backchannelLogoutUri: undefined,
      allowedRoles: undefined,
      firstParty: undefined,
    })
    expect(clientSecret).toBeUndefined()
    expect(application).toMatchObject({ type: 'public', postLogoutRedirectUris: [], backchannelLogoutUri: null, allowedRoles: [], firstParty: false, enabled: true })
    expect(await secretHashOf(application.id)).toBeNull()
  })

  it('writes "Created application Team Wiki" as the admin, in the Applications filter', async () => {
    const { application } = await createWiki()
    const [entry] = await entriesAbout(application.id)
    expect(entry).toMatchObject({ user_id: admin.id, actor_id: admin.id, kind: 'applications', activity: 'Created application Team Wiki', ip_address: '127.0.0.1' })
    const logs = expectSuccess(await as(t, admin).get('/api/admin/activity-logs?activity=applications&limit=100'))
    expect(logs.data.activities.map((a: { activity: string }) => a.activity)).toContain('Created application Team Wiki')
  })
})

describe('every field is checked, with its message', () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['an empty name', { name: '  ' }, 'name', applicationMessages.nameRequired],
    ['a name of 101 characters', { name: 'x'.repeat(101) }, 'name', applicationMessages.nameMax],
    ['an unknown type', { type: 'native' }, 'type', applicationMessages.type],
    ['no redirect URI', { redirectUris: [] }, 'redirectUris', applicationMessages.redirectUrisMin],
    ['a relative URL', { redirectUris: ['/callback'] }, 'redirectUris.0', 'Redirect URI must be an absolute URL'],
    ['not a URL', { redirectUris: ['wiki callback'] }, 'redirectUris.0', 'Redirect URI must be an absolute URL'],
    ['a fragment', { redirectUris: ['https://wiki.example.com/cb#top'] }, 'redirectUris.0', 'Redirect URI must not contain a fragment (#)'],
    [
      'http on a host that is not loopback',
      { redirectUris: ['https://wiki.example.com/cb', 'http://wiki.example.com/cb'] },
      'redirectUris.1',
      'Redirect URI must use https, or http on localhost, 127.0.0.1 or [::1]',
    ],
    ['another scheme', { redirectUris: ['javascript://alert(1)'] }, 'redirectUris.0', 'Redirect URI must use https, or http on localhost, 127.0.0.1 or [::1]'],
    ['21 redirect URIs', { redirectUris: Array.from({ length: 21 }, (_, i) => `https://wiki.example.com/cb/${i}`) }, 'redirectUris', applicationMessages.redirectUrisMax],
    [
      'a post-logout URI on http',
      { postLogoutRedirectUris: ['http://wiki.example.com/'] },
      'postLogoutRedirectUris.0',
      'Post-logout redirect URI must use https, or http on localhost, 127.0.0.1 or [::1]',
    ],
    [
      '21 post-logout URIs',
      { postLogoutRedirectUris: Array.from({ length: 21 }, (_, i) => `https://wiki.example.com/bye/${i}`) },
      'postLogoutRedirectUris',
      applicationMessages.postLogoutRedirectUrisMax,
    ],
    [
      'a back-channel URI with a fragment',
      { backchannelLogoutUri: 'https://wiki.example.com/logout#x' },
      'backchannelLogoutUri',
      'Back-channel logout URI must not contain a fragment (#)',
    ],
    ['an unknown role', { allowedRoles: ['ADMIN', 'OWNER'] }, 'allowedRoles.1', applicationMessages.role],
    ['first-party as text', { firstParty: 'yes' }, 'firstParty', applicationMessages.firstParty],
    ['an unknown field', { clientSecret: 'mine' }, 'clientSecret', 'Unrecognized field "clientSecret"'],
  ]

  it.each(cases)('%s: 400 at the field, nothing registered', async (_label, change, field, message) => {
    const before = await t.ctx.db.selectFrom('oidc_applications').select('id').execute()
    const body = expectFailure(await create({ ...WIKI, ...change }), 400, undefined, 'VALIDATION_ERROR')
    expect(body.errors).toContainEqual({ field, message })
    expect(await t.ctx.db.selectFrom('oidc_applications').select('id').execute()).toEqual(before)
  })

  it('the same rules on an edit, and the type cannot change', async () => {
    const { application } = await createWiki()
    let body = expectFailure(await edit(application.id, { redirectUris: ['http://wiki.example.com/cb'] }), 400, undefined, 'VALIDATION_ERROR')
    expect(body.errors).toContainEqual({ field: 'redirectUris.0', message: 'Redirect URI must use https, or http on localhost, 127.0.0.1 or [::1]' })
    body = expectFailure(await edit(application.id, { type: 'public' }), 400, applicationMessages.typeFixed, 'VALIDATION_ERROR')
    expect(body.errors).toEqual([{ field: 'type', message: applicationMessages.typeFixed }])
    expectFailure(await edit(application.id, {}), 400, applicationMessages.nothingToUpdate)
    expectFailure(await edit(application.id, { enabled: 'no' }), 400, applicationMessages.enabled)
    // The type it already has is no change.
    expectSuccess(await edit(application.id, { type: 'confidential', name: 'Team Wiki 2' }))
  })
})

describe('the list and one application', () => {
  it('lists every application, oldest first', async () => {
    const first = (await createWiki({ name: 'List First' })).application
    t.clock.advance(1)
    const second = (await createWiki({ name: 'List Second', type: 'public' })).application
    const body = expectSuccess(await as(t, admin).get('/api/admin/applications'))
    const ids = body.data.applications.map((a: { id: string }) => a.id)
    expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(second.id))
    expect(body.data.applications.find((a: { id: string }) => a.id === second.id)).toEqual(second)
  })

  it('an unknown id is a 404, whatever it looks like', async () => {
    for (const id of ['app_AAAAAAAAAAAAAAAAAAAAAA', 'nothing', "' OR 1=1 --"]) {
      expectFailure(await as(t, admin).get(`/api/admin/applications/${encodeURIComponent(id)}`), 404, applicationMessages.notFound, 'APPLICATION_NOT_FOUND')
      expectFailure(await edit(encodeURIComponent(id), { name: 'Ghost' }), 404, applicationMessages.notFound, 'APPLICATION_NOT_FOUND')
      expectFailure(await as(t, admin).post(`/api/admin/applications/${encodeURIComponent(id)}/secret`, {}), 404, undefined, 'APPLICATION_NOT_FOUND')
    }
  })
})

describe('editing an application', () => {
  it('saves what changed and records it from what to what, never a secret', async () => {
    const { application, clientSecret } = await createWiki()
    t.clock.advance(60)
    const body = expectSuccess(
      await edit(application.id, {
        name: 'Team Wiki Next',
        redirectUris: ['https://wiki.example.com/callback', 'https://wiki2.example.com/callback'],
        allowedRoles: [],
        firstParty: true,
        backchannelLogoutUri: null,
      }),
    )
    expect(body.message).toBe('Application updated')
    expect(body.data.application).toMatchObject({
      name: 'Team Wiki Next',
      redirectUris: ['https://wiki.example.com/callback', 'https://wiki2.example.com/callback'],
      allowedRoles: [],
      firstParty: true,
      backchannelLogoutUri: null,
      updatedAt: t.clock.now().toISOString(),
    })
    const entry = (await entriesAbout(application.id)).find((e) => e.activity.startsWith('Changed'))!
    expect(entry).toMatchObject({ user_id: admin.id, kind: 'applications', activity: 'Changed application Team Wiki' })
    const changes = typeof entry.changes === 'string' ? JSON.parse(entry.changes) : entry.changes
    // firstParty was already true: no change.
    expect(changes).toEqual([
      { field: 'name', from: 'Team Wiki', to: 'Team Wiki Next' },
      { field: 'redirectUris', from: 'https://wiki.example.com/callback', to: 'https://wiki.example.com/callback, https://wiki2.example.com/callback' },
      { field: 'backchannelLogoutUri', from: 'https://wiki.example.com/backchannel-logout', to: null },
      { field: 'allowedRoles', from: 'ADMIN, DEVELOPER', to: '' },
    ])
    expect(JSON.stringify(entry)).not.toContain(clientSecret!)
    // The API shows the same changes on the entry.
    const logs = expectSuccess(await as(t, admin).get(`/api/admin/activity-logs?activity=applications&search=${application.id}`))
    expect(logs.data.activities[0].changes).toEqual(changes)
  })

  it('an edit that changes nothing writes no entry', async () => {
    const { application } = await createWiki()
    expectSuccess(await edit(application.id, { name: 'Team Wiki', allowedRoles: ['DEVELOPER', 'ADMIN'] }))
    expect((await entriesAbout(application.id)).map((e) => e.activity)).toEqual(['Created application Team Wiki'])
  })

  it('disabling it deletes its codes and tokens at once, keeps its grants, and enabling it again works', async () => {
    const { application } = await createWiki()
    await payloadsFor(application.id, ['AccessToken', 'AuthorizationCode', 'Grant', 'RefreshToken'])
    const other = (await createWiki({ name: 'Other App' })).application
    await payloadsFor(other.id, ['AccessToken', 'RefreshToken'])

    expect(expectSuccess(await edit(application.id, { enabled: false })).data.application.enabled).toBe(false)
    expect(await modelsLeft(application.id)).toEqual(['Grant'])
    expect(await modelsLeft(other.id)).toEqual(['AccessToken', 'RefreshToken'])
    const entry = (await entriesAbout(application.id)).at(-1)!
    expect(entry.activity).toBe('Changed application Team Wiki')
    expect(typeof entry.changes === 'string' ? JSON.parse(entry.changes) : entry.changes).toEqual([{ field: 'enabled', from: 'true', to: 'false' }])

    expect(expectSuccess(await edit(application.id, { enabled: true })).data.application.enabled).toBe(true)
  })
})

describe('replacing the client secret', () => {
  it('gives a new secret once; the old hash is gone', async () => {
    const { application, clientSecret } = await createWiki()
    const body = expectSuccess(await as(t, admin).post(`/api/admin/applications/${application.id}/secret`, {}))
    const replaced = body.data.clientSecret as string
    expect(replaced).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(replaced).not.toBe(clientSecret)
    const stored = await secretHashOf(application.id)
    expect(stored).toEqual(hashClientSecret(replaced))
    expect(stored).not.toEqual(hashClientSecret(clientSecret!))
    const entry = (await entriesAbout(application.id)).at(-1)!
    expect(entry).toMatchObject({ kind: 'applications', activity: 'Replaced secret of application Team Wiki', user_id: admin.id })
    expect(JSON.stringify(entry)).not.toContain(replaced)
  })

  it('a public application has none: 409', async () => {
    const { application } = await createWiki({ type: 'public' })
    expectFailure(await as(t, admin).post(`/api/admin/applications/${application.id}/secret`, {}), 409, applicationMessages.publicHasNoSecret, 'PUBLIC_APPLICATION')
    expect(await secretHashOf(application.id)).toBeNull()
  })
})

describe('deleting an application', () => {
  it('deletes it with every grant, token and pending back-channel logout of it; a second delete is a 404', async () => {
    const { application } = await createWiki()
    await payloadsFor(application.id, ['AccessToken', 'AuthorizationCode', 'Grant', 'RefreshToken'])
    const other = (await createWiki({ name: 'Kept App' })).application
    await payloadsFor(other.id, ['Grant'])
    const now = t.clock.now()
    await t.ctx.db
      .insertInto('oidc_logout_jobs')
      .values([
        { client_id: application.id, account_id: admin.id, sid: 'sid-1', run_after: now, created_at: now },
        { client_id: other.id, account_id: admin.id, sid: 'sid-2', run_after: now, created_at: now },
      ])
      .execute()

    const body = expectSuccess(await as(t, admin).delete(`/api/admin/applications/${application.id}`))
    expect(body.message).toBe('Application deleted')
    expect(await modelsLeft(application.id)).toEqual([])
    expect(await modelsLeft(other.id)).toEqual(['Grant'])
    const jobs = await t.ctx.db.selectFrom('oidc_logout_jobs').select('client_id').where('client_id', 'in', [application.id, other.id]).execute()
    expect(jobs).toEqual([{ client_id: other.id }])
    expectFailure(await as(t, admin).get(`/api/admin/applications/${application.id}`), 404)
    expectFailure(await as(t, admin).delete(`/api/admin/applications/${application.id}`), 404, applicationMessages.notFound, 'APPLICATION_NOT_FOUND')
    expect((await entriesAbout(application.id)).map((e) => e.activity)).toEqual(['Created application Team Wiki', 'Deleted application Team Wiki'])
  })
})

describe('only admins', () => {
  // Every role and anonymous, with and without CSRF tokens: tests/api/permission-matrix.test.ts.
  it('a moderator can neither list nor register', async () => {
    const moderator = await quickSignIn(t, { role: 'MODERATOR' })
    expectFailure(await as(t, moderator).get('/api/admin/applications'), 403)
    expectFailure(await as(t, moderator).post('/api/admin/applications', WIKI), 403)
  })
})
