import { beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '~server/app'
import { ROLES } from '~shared/constants'
import { API_ACCESS } from '~shared/permissions'
import { useTestApp, type SignedIn } from '../../support/test-app'
import { as, countWhere } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'
import { ALL_ENDPOINTS, type Callers, catalogueGaps } from './endpoints'

/**
 * Access control (checklist: V8).
 *
 * Already proved elsewhere, and not repeated: every profile, picture, activity and administration
 * call against every role and anonymous, and without or with another user's CSRF token
 * (tests/api/permission-matrix.test.ts); role, status, emailVerified, id, email and
 * profilePicture refused in a profile update (profile.test.ts) and in a registration
 * (auth/register.test.ts); two admins demoting, suspending or deactivating each other at the
 * same instant, also with both inside their transactions at once on PostgreSQL
 * (admin-users.test.ts).
 */

const t = useTestApp()
let callers: Callers
const signedIn = {} as Record<(typeof ROLES)[number], SignedIn>
beforeAll(async () => {
  for (const role of ROLES) signedIn[role] = await quickSignIn(t, { role, name: `Access ${role}` })
  callers = { user: signedIn.CLIENT, admin: signedIn.ADMIN, targetId: (await quickUser(t)).id }
})

describe('deny by default', () => {
  it('refuses to register an /api route that the permission table does not name', async () => {
    const app = await buildApp(t.ctx)
    try {
      expect(() => app.get('/api/forgotten-route', async () => ({ secret: true }))).toThrow(/not in the permission table/)
      expect(() => app.post('/api/admin/backdoor', async () => ({}))).toThrow(/not in the permission table/)
    } finally {
      await app.close()
    }
  })

  it('asks every anonymous call to every endpoint of the table to sign in, unless the table makes it public', async () => {
    expect(catalogueGaps()).toEqual([])
    for (const endpoint of ALL_ENDPOINTS) {
      const access = API_ACCESS[endpoint.key]
      const methods = endpoint.method === 'GET' ? ['GET', 'HEAD'] : [endpoint.method]
      for (const method of methods) {
        const response = await t.request(method, endpoint.path(callers), endpoint.method === 'GET' ? {} : { body: {} })
        if (access === 'public') {
          expect(response.statusCode, `${method} ${endpoint.key}`).not.toBe(401)
        } else {
          expect(response.statusCode, `${method} ${endpoint.key}: ${response.body}`).toBe(401)
          if (method !== 'HEAD') expect(response.json().code).toBe('AUTH_REQUIRED')
        }
      }
    }
  })

  it('serves the session calls to every role', async () => {
    for (const role of ROLES) {
      const fresh = await quickSignIn(t, { role })
      expect((await as(t, fresh).get('/api/auth/me')).statusCode, role).toBe(200)
      expect((await as(t, fresh).get('/api/auth/csrf-token')).statusCode, role).toBe(200)
      expect((await t.request('POST', '/api/auth/logout', { token: fresh.accessToken, csrf: fresh.csrfToken })).statusCode, role).toBe(200)
      const again = await quickSignIn(t, { role })
      expect((await t.request('POST', '/api/auth/logout-all', { token: again.accessToken, csrf: again.csrfToken })).statusCode, role).toBe(200)
    }
  })

  it('cannot be walked around by spelling an admin address differently', async () => {
    const variants = [
      '/api/admin/users/',
      '/API/admin/users',
      '/api//admin/users',
      '/api/./admin/users',
      '/api/users/../admin/users',
      '/api/%61dmin/users',
      '/api/admin/users;role=ADMIN',
      '/api/admin/users%2F',
      '/api/admin%2Fusers',
      '/api/admin/stats?role=ADMIN',
      '/api/admin/stats#',
      '//api/admin/stats',
    ]
    for (const url of variants) {
      for (const who of ['anonymous', 'CLIENT', 'MODERATOR'] as const) {
        const options = who === 'anonymous' ? {} : { token: signedIn[who].accessToken }
        const response = await t.request('GET', url, options)
        expect([401, 403, 404], `${url} as ${who}: ${response.statusCode}`).toContain(response.statusCode)
        expect(response.body).not.toContain('"users"')
        expect(response.body).not.toContain('"stats"')
      }
    }
  })
})

describe('mass assignment', () => {
  const FORBIDDEN = [
    ['id', { id: '00000000-0000-4000-8000-000000000000' }],
    ['emailVerified', { emailVerified: true }],
    ['email_verified_at', { email_verified_at: '2020-01-01T00:00:00Z' }],
    ['createdAt', { createdAt: '2000-01-01T00:00:00.000Z' }],
    ['updatedAt', { updatedAt: '2000-01-01T00:00:00.000Z' }],
    ['password', { password: 'Chosen-By-Admin-1!' }],
    ['passwordHash', { passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$AAAA$AAAA' }],
    ['password_hash', { password_hash: 'x' }],
    ['profilePicture', { profilePicture: 'https://evil.example/me.png' }],
    ['picture_id', { picture_id: 'AAAAAAAAAAAAAAAAAAAAAA.webp' }],
  ] as const

  const row = (id: string) => t.ctx.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

  it.each(FORBIDDEN)("an admin's edit carrying %s is a 400 naming it, and changes nothing", async (name, extra) => {
    const target = await quickUser(t, { name: 'Edit Target' })
    const before = await row(target.id)
    const entries = await countWhere(t, 'activities', { user_id: target.id })
    const response = await as(t, signedIn.ADMIN).put(`/api/admin/users/${target.id}`, { name: 'Changed Anyway', role: 'DEVELOPER', ...extra })
    expect(response.statusCode, response.body).toBe(400)
    expect(response.json().errors).toEqual(expect.arrayContaining([{ field: name, message: `Unrecognized field "${name}"` }]))
    expect(await row(target.id)).toEqual(before)
    expect(await countWhere(t, 'activities', { user_id: target.id })).toBe(entries)
  })

  it.each(FORBIDDEN.filter(([name]) => !['id', 'emailVerified', 'profilePicture'].includes(name)))(
    'a profile update carrying %s is a 400 naming it, and changes nothing',
    async (name, extra) => {
      const user = await quickSignIn(t, { name: 'Profile Owner' })
      const before = await row(user.id)
      const response = await as(t, user).put('/api/users/profile', { name: 'Changed Anyway', ...extra })
      expect(response.statusCode, response.body).toBe(400)
      expect(response.json().errors).toEqual(expect.arrayContaining([{ field: name, message: `Unrecognized field "${name}"` }]))
      expect(await row(user.id)).toEqual(before)
    },
  )
})
