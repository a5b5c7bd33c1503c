import crypto from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../support/test-app'
import { APP_ORIGIN, activitiesOf, expectFailure, me, refresh, signInAs } from './helpers'

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))

// One application for the whole file: each story uses accounts of its own.
const t = useTestApp()

describe('a signed-in user', () => {
  it('reads their own user with the access token', async () => {
    const user = await t.createUser({ name: 'Margaret Hamilton' })
    const session = await signInAs(t, user)
    const response = await me(t, session.accessToken)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ success: true, data: session.user })
  })

  it('is a stranger without a token, or with one that is not a token', async () => {
    expectFailure(await t.request('GET', '/api/auth/me'), 401, 'AUTH_REQUIRED')
    expectFailure(await me(t, 'not-a-token'), 401, 'TOKEN_INVALID')
    expectFailure(await t.request('GET', '/api/auth/me', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }), 401, 'AUTH_REQUIRED')
  })

  it('is refused with an edited token, an unsigned (alg: none) token or a token signed with another key', async () => {
    const victim = await t.createUser()
    const attacker = await t.createUser()
    const session = await signInAs(t, attacker)
    const [header, payload, signature] = session.accessToken.split('.') as [string, string, string]
    expect(decode(header)).toMatchObject({ alg: 'HS256' })

    const edited = `${header}.${b64url({ ...decode(payload), sub: victim.id })}.${signature}`
    const unsigned = `${b64url({ alg: 'none', typ: 'at+jwt' })}.${payload}.`
    const otherKey = crypto.createHmac('sha256', 'another secret').update(`${header}.${payload}`).digest('base64url')
    const forged = `${header}.${payload}.${otherKey}`
    const longLived = `${header}.${b64url({ ...decode(payload), exp: decode(payload).exp + 10 ** 6 })}.${signature}`

    for (const token of [edited, unsigned, `${b64url({ alg: 'none' })}.${payload}.${signature}`, forged, longLived]) {
      expectFailure(await me(t, token), 401, 'TOKEN_INVALID')
    }
    expect((await me(t, session.accessToken)).statusCode).toBe(200)
  })

  it('cannot use the refresh token as an access token, nor the access token as a refresh token', async () => {
    const session = await signInAs(t, await t.createUser())
    expectFailure(await me(t, session.refreshToken), 401, 'TOKEN_INVALID')
    expectFailure(await refresh(t, session.accessToken), 401, 'REFRESH_INVALID')
    expectFailure(await refresh(t, session.csrfToken), 401, 'REFRESH_INVALID')
  })

  it('finds the access token expired after ACCESS_TOKEN_TTL, and gets a new one with the refresh token', async () => {
    const session = await signInAs(t, await t.createUser())
    t.clock.advance(t.config.accessTokenTtl - 5)
    expect((await me(t, session.accessToken)).statusCode).toBe(200)
    t.clock.advance(10)
    expectFailure(await me(t, session.accessToken), 401, 'TOKEN_INVALID')

    const renewed = await refresh(t, session.refreshToken)
    expect(renewed.statusCode).toBe(200)
    expect((await me(t, renewed.json().data.accessToken)).statusCode).toBe(200)
  })

  it('reads the CSRF token of the session, also in the X-CSRF-Token header', async () => {
    const session = await signInAs(t, await t.createUser())
    const response = await t.request('GET', '/api/auth/csrf-token', { token: session.accessToken })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ success: true, data: { csrfToken: session.csrfToken } })
    expect(response.headers['x-csrf-token']).toBe(session.csrfToken)
    expectFailure(await t.request('GET', '/api/auth/csrf-token'), 401, 'AUTH_REQUIRED')
  })

  it('loses access at once when the account is suspended', async () => {
    const user = await t.createUser()
    const session = await signInAs(t, user)
    await t.ctx.db.updateTable('users').set({ status: 'SUSPENDED' }).where('id', '=', user.id).execute()
    expectFailure(await me(t, session.accessToken), 403, 'ACCOUNT_SUSPENDED', 'Account is suspended')
    expectFailure(await refresh(t, session.refreshToken), 401, 'REFRESH_INVALID')
  })
})

describe('refreshing the session', () => {
  it('rotates the refresh token and needs neither an access token nor a CSRF header', async () => {
    const session = await signInAs(t, await t.createUser())
    const response = await refresh(t, session.refreshToken)
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(Object.keys(body.data).sort()).toEqual(['accessToken', 'csrfToken', 'refreshToken'])
    expect(body.success).toBe(true)
    expect(body.data.refreshToken).not.toBe(session.refreshToken)
    expect(body.data.accessToken).not.toBe(session.accessToken)
    expect(body.data.csrfToken).toBe(session.csrfToken)
    expect(response.headers['x-csrf-token']).toBe(body.data.csrfToken)
    expect((await me(t, body.data.accessToken)).statusCode).toBe(200)
  })

  it('kills the whole session when a rotated refresh token comes back after the 10 s grace', async () => {
    const user = await t.createUser()
    const session = await signInAs(t, user)
    const next = (await refresh(t, session.refreshToken)).json().data
    t.clock.advance(11)

    expectFailure(await refresh(t, session.refreshToken), 401, 'REFRESH_INVALID')
    expectFailure(await me(t, next.accessToken), 401, 'SESSION_ENDED')
    expectFailure(await refresh(t, next.refreshToken), 401, 'REFRESH_INVALID')
    const ended = await t.ctx.db.selectFrom('sessions').select(['revoked_at']).where('user_id', '=', user.id).execute()
    expect(ended.every((s) => s.revoked_at !== null)).toBe(true)
    expect((await activitiesOf(t, user.id)).at(-1)!.activity).toMatch(/refresh token/)
  })

  it('keeps two tabs signed in when both refresh with the same token within 10 s: both get the same successor', async () => {
    const session = await signInAs(t, await t.createUser())
    const [first, second] = await Promise.all([refresh(t, session.refreshToken), refresh(t, session.refreshToken)])
    t.clock.advance(5)
    const late = await refresh(t, session.refreshToken)
    for (const response of [first!, second!, late]) expect(response.statusCode, response.body).toBe(200)

    // One chain: every answer carries the one token the session now holds (decision 0302).
    const tabs = [first!, second!, late].map((r) => r.json().data)
    expect(new Set(tabs.map((tab) => tab.refreshToken)).size).toBe(1)
    t.clock.advance(30)
    for (const tab of tabs) expect((await me(t, tab.accessToken)).statusCode).toBe(200)
    expect((await refresh(t, tabs[0].refreshToken)).statusCode).toBe(200)
  })

  it('ends after REFRESH_TOKEN_TTL without use', async () => {
    const session = await signInAs(t, await t.createUser())
    t.clock.advance(t.config.refreshTokenTtl + 1)
    expectFailure(await refresh(t, session.refreshToken), 401, 'REFRESH_INVALID')
  })

  it('stays alive while used, but not beyond REFRESH_TOKEN_MAX_AGE', async () => {
    const session = await signInAs(t, await t.createUser())
    const step = t.config.refreshTokenTtl - 60
    let refreshToken = session.refreshToken
    let elapsed = 0
    while (elapsed + step < t.config.refreshTokenMaxAge) {
      t.clock.advance(step)
      elapsed += step
      const response = await refresh(t, refreshToken)
      expect(response.statusCode, `after ${elapsed} s`).toBe(200)
      refreshToken = response.json().data.refreshToken
    }
    expect(elapsed).toBeGreaterThan(t.config.refreshTokenTtl)
    t.clock.advance(t.config.refreshTokenMaxAge - elapsed + 1)
    expectFailure(await refresh(t, refreshToken), 401, 'REFRESH_INVALID')
  })

  it('at its absolute end also refuses the access token it gave out last', async () => {
    const session = await signInAs(t, await t.createUser())
    const step = t.config.refreshTokenTtl - 60
    let tokens = { accessToken: session.accessToken, refreshToken: session.refreshToken }
    let elapsed = 0
    while (elapsed + step < t.config.refreshTokenMaxAge - 60) {
      t.clock.advance(step)
      elapsed += step
      tokens = (await refresh(t, tokens.refreshToken)).json().data
    }
    t.clock.advance(t.config.refreshTokenMaxAge - elapsed - 30)
    tokens = (await refresh(t, tokens.refreshToken)).json().data
    expect((await me(t, tokens.accessToken)).statusCode).toBe(200)
    t.clock.advance(60)
    expectFailure(await me(t, tokens.accessToken), 401, 'SESSION_ENDED')
  })

  it('refuses a refresh token it never issued, and a missing one', async () => {
    expectFailure(await refresh(t, crypto.randomBytes(32).toString('base64url')), 401, 'REFRESH_INVALID')
    const missing = await t.request('POST', '/api/auth/refresh-token', { body: {} })
    expectFailure(missing, 400, 'VALIDATION_ERROR')
  })
})

describe('signing out', () => {
  const logout = (session: { accessToken: string; csrfToken: string }, path = '/api/auth/logout', remoteAddress?: string) =>
    t.request('POST', path, { token: session.accessToken, csrf: session.csrfToken, ...(remoteAddress ? { remoteAddress } : {}) })

  it('ends only this session: its tokens are dead, another device stays signed in', async () => {
    const user = await t.createUser()
    const laptop = await signInAs(t, user)
    const phone = await signInAs(t, user)

    const response = await logout(laptop, '/api/auth/logout', '198.51.100.9')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ success: true, message: 'Logged out successfully' })

    expectFailure(await me(t, laptop.accessToken), 401, 'SESSION_ENDED')
    expectFailure(await refresh(t, laptop.refreshToken), 401, 'REFRESH_INVALID')
    expect((await me(t, phone.accessToken)).statusCode).toBe(200)
    expect((await refresh(t, phone.refreshToken)).statusCode).toBe(200)
    expect((await activitiesOf(t, user.id)).at(-1)).toMatchObject({ kind: 'logged out', activity: 'Logged out', ip_address: '198.51.100.9' })
  })

  it('everywhere ends every session of the user', async () => {
    const user = await t.createUser()
    const laptop = await signInAs(t, user)
    const phone = await signInAs(t, user)
    const someoneElse = await signInAs(t, await t.createUser())

    const response = await logout(laptop, '/api/auth/logout-all')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ success: true })

    for (const session of [laptop, phone]) {
      expectFailure(await me(t, session.accessToken), 401, 'SESSION_ENDED')
      expectFailure(await refresh(t, session.refreshToken), 401, 'REFRESH_INVALID')
    }
    expect((await me(t, someoneElse.accessToken)).statusCode).toBe(200)
  })

  it('needs the CSRF token of this very session; without it nothing changes', async () => {
    const user = await t.createUser()
    const session = await signInAs(t, user)
    const other = await signInAs(t, await t.createUser())

    for (const path of ['/api/auth/logout', '/api/auth/logout-all']) {
      const withoutToken = await t.request('POST', path, { token: session.accessToken })
      expectFailure(withoutToken, 403, 'CSRF_INVALID', 'Invalid or missing CSRF token')
      const withAnotherSessions = await t.request('POST', path, { token: session.accessToken, csrf: other.csrfToken })
      expectFailure(withAnotherSessions, 403, 'CSRF_INVALID', 'Invalid or missing CSRF token')
      const withGarbage = await t.request('POST', path, { token: session.accessToken, csrf: 'x'.repeat(43) })
      expectFailure(withGarbage, 403, 'CSRF_INVALID', 'Invalid or missing CSRF token')
    }
    expect((await me(t, session.accessToken)).statusCode).toBe(200)
    expect((await me(t, other.accessToken)).statusCode).toBe(200)
    expect((await activitiesOf(t, user.id)).map((a) => a.activity)).not.toContain('Logged out')
  })

  it.each(['/api/auth/logout', '/api/auth/logout-all'])('%s works when the client labels its empty body as JSON, as many do', async (path) => {
    const session = await signInAs(t, await t.createUser())
    for (const payload of [undefined, '', '  ']) {
      const again = await signInAs(t, await t.createUser())
      const response = await t.request('POST', path, {
        token: again.accessToken,
        csrf: again.csrfToken,
        headers: { 'content-type': 'application/json' },
        ...(payload !== undefined ? { payload } : {}),
      })
      expect(response.statusCode, response.body).toBe(200)
      expectFailure(await me(t, again.accessToken), 401, 'SESSION_ENDED')
    }
    // A call that takes a body still says when it is missing.
    const empty = await t.request('PUT', '/api/users/change-password', {
      token: session.accessToken,
      csrf: session.csrfToken,
      headers: { 'content-type': 'application/json' },
      payload: '',
    })
    expectFailure(empty, 400, 'BAD_REQUEST', 'Request body is empty')
  })

  it('needs to be signed in', async () => {
    expectFailure(await t.request('POST', '/api/auth/logout'), 401, 'AUTH_REQUIRED')
    expectFailure(await t.request('POST', '/api/auth/logout-all'), 401, 'AUTH_REQUIRED')
  })
})

describe('the web app on its own origin', () => {
  const exposed = (headers: Record<string, unknown>) =>
    String(headers['access-control-expose-headers'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())

  it('can read the X-CSRF-Token header of login, refresh and csrf-token through CORS', async () => {
    const user = await t.createUser()
    const origin = { origin: APP_ORIGIN }
    const login = await t.request('POST', '/api/auth/login', { body: { email: user.email, password: user.password }, headers: origin })
    const session = login.json().data
    const refreshed = await t.request('POST', '/api/auth/refresh-token', { body: { refreshToken: session.refreshToken }, headers: origin })
    const csrf = await t.request('GET', '/api/auth/csrf-token', { token: refreshed.json().data.accessToken, headers: origin })

    for (const response of [login, refreshed, csrf]) {
      expect(response.statusCode).toBe(200)
      expect(response.headers['x-csrf-token']).toBe(session.csrfToken)
      expect(response.headers['access-control-allow-origin']).toBe(APP_ORIGIN)
      expect(exposed(response.headers)).toContain('x-csrf-token')
    }
  })

  it('may send the X-CSRF-Token header from its origin (preflight)', async () => {
    const preflight = await t.request('OPTIONS', '/api/auth/logout', {
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,x-csrf-token,content-type' },
    })
    expect(preflight.statusCode).toBeLessThan(300)
    expect(preflight.headers['access-control-allow-origin']).toBe(APP_ORIGIN)
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('x-csrf-token')
  })

  it('never echoes a foreign Origin', async () => {
    const user = await t.createUser()
    const evil = 'https://evil.example'
    const login = await t.request('POST', '/api/auth/login', { body: { email: user.email, password: user.password }, headers: { origin: evil } })
    const preflight = await t.request('OPTIONS', '/api/auth/login', {
      headers: { origin: evil, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    })
    for (const response of [login, preflight]) {
      expect(response.headers['access-control-allow-origin']).toBeUndefined()
      expect(JSON.stringify(response.headers)).not.toContain('evil.example')
    }
  })
})
