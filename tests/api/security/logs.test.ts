import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '~server/app'
import { useTestApp, type SignedIn, STRONG_PASSWORD } from '../../support/test-app'
import { activitiesOf, forgotPassword, newVisitor, refresh, register, resetLink, tokenOf, userIdOf, verificationLink } from '../auth/helpers'
import { dataUrl, pngImage } from '../helpers/images'
import { as } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'

/**
 * Logs (checklist: V16), at the most talkative level.
 *
 * Already proved elsewhere, and not repeated: no password, token or Authorization value in the
 * log after sign-ups, sign-ins, refreshes, verifications and resets, one-time tokens cut out of
 * API paths and page addresses (tests/api/auth/logs.test.ts); the entries of one user's journey
 * with their client addresses (auth/activity.test.ts). Here: the rest of the API in the same
 * run (password changes, sign-out everywhere, profile, picture, admin edits and deletions, a
 * failing request), every auth event and admin action with its entry, forged log lines, and what
 * an internal error shows.
 */

const t = useTestApp({ LOG_LEVEL: 'trace' })
let admin: SignedIn
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Log Admin' })
})

const parsed = () => t.logs.map((line) => JSON.parse(line) as Record<string, any>)

describe('a log line cannot be forged', () => {
  const FORGED = '\n{"level":60,"msg":"forged entry"}\r\n\u001b[2J\u001b[31mALERT\u0007'

  it('by names, addresses or searches carrying line breaks and terminal escapes: refused with a 400, nothing stored', async () => {
    const user = await quickSignIn(t, { name: 'Plain Name' })
    const target = await quickUser(t)
    for (const name of [`Evil${FORGED}`, 'Red \u001b[31mName', 'Two\nLines', 'Bell\u0007']) {
      expect((await register(t, newVisitor({ name }))).statusCode, JSON.stringify(name)).toBe(400)
      expect((await as(t, user).put('/api/users/profile', { name })).statusCode).toBe(400)
      expect((await as(t, admin).put(`/api/admin/users/${target.id}`, { name })).statusCode).toBe(400)
      expect((await as(t, admin).get(`/api/admin/users?search=${encodeURIComponent(name)}`)).statusCode).toBe(400)
    }
    for (const email of [`a${FORGED}@example.com`, 'a\u001b[31m@example.com', 'a\n@example.com']) {
      expect((await t.request('POST', '/api/auth/forgot-password', { body: { email } })).statusCode).toBe(400)
    }
    const names = await t.ctx.db.selectFrom('users').select('name').execute()
    for (const { name } of names) expect(name).not.toMatch(/\p{Cc}/u)
  })

  it('through the parts of a request the log does record: each line stays one JSON object, escapes escaped', async () => {
    const before = t.logs.length
    const encoded = encodeURIComponent(FORGED)
    await t.request('GET', `/api/users/pictures/${encoded}`)
    await t.request('GET', `/api/health?probe=${encoded}`)
    await t.request('GET', `/api/auth/verify-email/${encoded}`)
    await t.request('GET', `/no-such-page?x=${encoded}`)
    // Raw, unencoded, as a broken client or a hand-made request might send them.
    await t.request('GET', `/api/health?probe=${FORGED}`)
    await t.request('GET', `/api/admin/users/${FORGED}`, { token: admin.accessToken })
    await t.request('POST', '/api/auth/login', { payload: `{"email":"x@example.com","password":"${encoded}"}`, headers: { 'content-type': 'application/json' } })
    await t.request('POST', '/api/auth/login', { payload: FORGED, headers: { 'content-type': 'application/json' } })

    const lines = t.logs.slice(before)
    expect(lines.length).toBeGreaterThan(10)
    for (const line of lines) {
      const entry = JSON.parse(line) as Record<string, unknown>
      expect(entry.msg).not.toBe('forged entry')
      // Control characters are what this looks for.
      // eslint-disable-next-line no-control-regex
      expect(line).not.toMatch(/[\u0000-\u001f\u007f]/)
    }
    // The request paths were logged, escaped.
    expect(lines.some((line) => line.includes('\\u001b[2J') || line.includes('%1B%5B2J'))).toBe(true)
  })
})

describe('an internal error', () => {
  it('answers a generic 500 with a request id, and leaves the details with that id in the log', async () => {
    const secret = 'SELECT password_hash FROM users WHERE id = 42 -- /srv/accounts/src/secret.ts:12'
    const app = await buildApp(t.ctx)
    // Routes made for this test only, outside /api (which accepts only routes of the permission table).
    app.get('/test-only/throws', async () => {
      throw new Error(secret)
    })
    app.get('/test-only/rejects-with-a-string', async () => Promise.reject(secret))
    app.get('/test-only/throws-a-502', async () => {
      throw Object.assign(new Error(secret), { statusCode: 502 })
    })
    await app.ready()
    try {
      for (const url of ['/test-only/throws', '/test-only/rejects-with-a-string', '/test-only/throws-a-502']) {
        const response = await app.inject({ method: 'GET', url })
        expect(response.statusCode, url).toBe(500)
        const body = response.json()
        expect(body).toEqual({ success: false, message: 'Internal server error', code: 'INTERNAL_ERROR', requestId: expect.any(String) })
        expect(response.headers['x-request-id']).toBe(body.requestId)
        expect(response.body).not.toMatch(/SELECT|password_hash|\/srv|secret\.ts|\bat \w/)

        const logged = parsed().filter((entry) => entry.reqId === body.requestId && entry.level >= 50)
        expect(logged, url).toHaveLength(1)
        expect(JSON.stringify(logged[0]), url).toContain('SELECT password_hash FROM users')
      }
      const withStack = parsed().find((entry) => entry.level >= 50 && entry.err?.message === secret)
      expect(withStack?.err.stack).toMatch(/\n\s+at /)
    } finally {
      await app.close()
    }
  })

  it('from the database answers the same, and the database error is in the log, not in the answer', async () => {
    const user = await quickSignIn(t, { name: 'Broken Query' })
    await sql`
      CREATE FUNCTION break_profile_updates() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'column "password_hash" of relation "users" is broken at /var/lib/postgresql/data'; END $$;
      CREATE TRIGGER break_profile_updates BEFORE UPDATE OF name ON users FOR EACH ROW EXECUTE FUNCTION break_profile_updates();
    `.execute(t.ctx.db)
    try {
      const response = await as(t, user).put('/api/users/profile', { name: 'Never Saved', phone: '123' })
      expect(response.statusCode).toBe(500)
      const body = response.json()
      expect(body).toEqual({ success: false, message: 'Internal server error', code: 'INTERNAL_ERROR', requestId: expect.any(String) })
      expect(response.body).not.toMatch(/password_hash|relation|postgresql|trigger/)
      const logged = parsed().find((entry) => entry.reqId === body.requestId && entry.level >= 50)
      expect(logged?.err.message).toContain('column "password_hash" of relation "users" is broken')
      // The request body (a profile here, a password elsewhere) is not part of the error's line.
      expect(JSON.stringify(logged)).not.toContain('Never Saved')
    } finally {
      await sql`DROP TRIGGER break_profile_updates ON users; DROP FUNCTION break_profile_updates();`.execute(t.ctx.db)
    }
  })
})

describe('after everything the API does', () => {
  it('the log holds no password, token or Authorization value, and every auth event and admin action has its entry', async () => {
    const secrets = new Set<string>()
    const keep = (...values: (string | undefined)[]) => values.forEach((value) => value && secrets.add(value))
    const from = (n: number) => `198.51.100.${n}`

    // A visitor registers (and someone tries the same address), asks for the link again, verifies.
    const visitor = newVisitor({ password: 'Logged-Nowhere-Pass-1!' })
    keep(visitor.password)
    await register(t, visitor, { remoteAddress: from(1) })
    await register(t, { ...visitor, password: 'Intruder-Pass-Word-2!' }, { remoteAddress: from(2) })
    keep('Intruder-Pass-Word-2!')
    await t.request('POST', '/api/auth/resend-verification', { body: { email: visitor.email }, remoteAddress: from(3) })
    const verifyToken = tokenOf(await verificationLink(t, visitor.email))
    keep(verifyToken)
    await t.request('GET', `/api/auth/verify-email/${verifyToken}`, { remoteAddress: from(4) })
    const id = await userIdOf(t, visitor.email)

    // Signs in wrong, then right, twice; refreshes; a stolen refresh token comes back late.
    await t.login(visitor.email, 'Not-My-Password-3!', from(5))
    keep('Not-My-Password-3!')
    const laptop = (await t.login(visitor.email, visitor.password, from(6))).json().data
    const phone = (await t.login(visitor.email, visitor.password, from(6))).json().data
    keep(laptop.accessToken, laptop.refreshToken, laptop.csrfToken, phone.accessToken, phone.refreshToken, phone.csrfToken)
    const renewed = (await refresh(t, phone.refreshToken)).json().data
    keep(renewed.accessToken, renewed.refreshToken)
    t.clock.advance(11)
    await refresh(t, phone.refreshToken)

    // Edits the profile and the picture, fails then succeeds a password change, signs out everywhere.
    const session = { accessToken: laptop.accessToken, csrfToken: laptop.csrfToken }
    const call = (method: string, url: string, body?: unknown) =>
      t.request(method, url, { token: session.accessToken, csrf: session.csrfToken, remoteAddress: from(7), ...(body ? { body } : {}) })
    await call('PUT', '/api/users/profile', { name: 'Visitor Renamed', phone: '+1 555 0142' })
    await call('POST', '/api/users/profile-picture', { profilePicture: dataUrl(await pngImage(20, 20)) })
    await call('PUT', '/api/users/change-password', { currentPassword: 'Wrong-Current-4!', newPassword: 'Next-Secret-Pass-5!', confirmPassword: 'Next-Secret-Pass-5!' })
    keep('Wrong-Current-4!', 'Next-Secret-Pass-5!')
    await call('PUT', '/api/users/change-password', { currentPassword: visitor.password, newPassword: 'Next-Secret-Pass-5!', confirmPassword: 'Next-Secret-Pass-5!' })
    await call('POST', '/api/auth/logout-all')
    // A password in the body of a request that fails on the server side.
    await t.request('POST', '/api/auth/login', {
      payload: `{"email":"${visitor.email}","password":"Failing-Body-Pass-6!"`,
      headers: { 'content-type': 'application/json' },
    })
    keep('Failing-Body-Pass-6!')

    // Forgets it, resets it, signs in and out.
    await forgotPassword(t, visitor.email, from(8))
    const resetToken = tokenOf(await resetLink(t, visitor.email))
    keep(resetToken, 'After-Reset-Pass-7!')
    await t.request('POST', `/api/auth/reset-password/${resetToken}`, {
      body: { password: 'After-Reset-Pass-7!', confirmPassword: 'After-Reset-Pass-7!' },
      remoteAddress: from(9),
    })
    const last = (await t.login(visitor.email, 'After-Reset-Pass-7!', from(10))).json().data
    keep(last.accessToken, last.refreshToken, last.csrfToken)
    await t.request('POST', '/api/auth/logout', { token: last.accessToken, csrf: last.csrfToken, remoteAddress: from(11) })

    // An admin changes the role, suspends, deactivates and deletes the account.
    keep(admin.accessToken, admin.csrfToken, admin.refreshToken, STRONG_PASSWORD)
    await as(t, admin).put(`/api/admin/users/${id}`, { role: 'MODERATOR' })
    await as(t, admin).put(`/api/admin/users/${id}`, { status: 'SUSPENDED', name: 'Visitor Suspended' })
    await as(t, admin).put(`/api/admin/users/${id}`, { status: 'INACTIVE' })
    const entriesBeforeDelete = await activitiesOf(t, id)
    await as(t, admin).delete(`/api/admin/users/${id}`)

    // The log saw all of it and kept none of the secrets.
    const log = t.logs.join('\n')
    expect(t.logs.length).toBeGreaterThan(60)
    for (const value of secrets) {
      expect(log.includes(value), `a secret in the log: ${value.slice(0, 8)}…`).toBe(false)
      expect(log.includes(value.slice(0, 16)), `a piece of a secret in the log: ${value.slice(0, 8)}…`).toBe(false)
    }
    expect(log.toLowerCase()).not.toMatch(/"authorization"|bearer |x-csrf-token|"cookie"/)

    // Every auth event and admin action, with where it came from.
    const activities = entriesBeforeDelete.map(({ kind, activity, ip_address }) => ({ kind, activity, ip_address }))
    expect(activities).toEqual([
      { kind: 'registered', activity: 'Registered', ip_address: from(1) },
      { kind: 'other', activity: 'Registration attempted with this address', ip_address: from(2) },
      { kind: 'verified', activity: 'Verification link requested', ip_address: from(3) },
      { kind: 'verified', activity: 'Verified email', ip_address: from(4) },
      { kind: 'other', activity: 'Failed login', ip_address: from(5) },
      { kind: 'logged in', activity: 'Logged in', ip_address: from(6) },
      { kind: 'logged in', activity: 'Logged in', ip_address: from(6) },
      { kind: 'other', activity: 'Session ended: a used refresh token was presented again', ip_address: '127.0.0.1' },
      { kind: 'updated', activity: 'Updated profile', ip_address: from(7) },
      { kind: 'updated', activity: 'Updated profile picture', ip_address: from(7) },
      { kind: 'other', activity: 'Failed password change', ip_address: from(7) },
      { kind: 'updated', activity: 'Changed password', ip_address: from(7) },
      { kind: 'logged out', activity: 'Logged out of all sessions', ip_address: from(7) },
      { kind: 'reset', activity: 'Reset link requested', ip_address: from(8) },
      { kind: 'reset', activity: 'Reset password', ip_address: from(9) },
      { kind: 'logged in', activity: 'Logged in', ip_address: from(10) },
      { kind: 'logged out', activity: 'Logged out', ip_address: from(11) },
      { kind: 'updated', activity: `Changed role of Visitor Renamed (${visitor.email})`, ip_address: '127.0.0.1' },
      { kind: 'updated', activity: `Updated user Visitor Renamed (${visitor.email})`, ip_address: '127.0.0.1' },
      { kind: 'updated', activity: `Updated user Visitor Suspended (${visitor.email})`, ip_address: '127.0.0.1' },
    ])
    const deletion = await t.ctx.db
      .selectFrom('activities')
      .select(['kind', 'actor_id', 'user_id'])
      .where('activity', '=', `Deleted user Visitor Suspended (${visitor.email})`)
      .execute()
    expect(deletion).toEqual([{ kind: 'deleted', actor_id: admin.id, user_id: null }])
    // The entries never hold a password or a token either.
    const stored = JSON.stringify(await t.ctx.db.selectFrom('activities').selectAll().execute())
    for (const value of secrets) expect(stored.includes(value)).toBe(false)
  })
})
