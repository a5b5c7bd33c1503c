import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type { LightMyRequestResponse } from 'fastify'
import PostalMime from 'postal-mime'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '~server/app'
import { useTestApp } from '../../support/test-app'
import { APP_ORIGIN, me, newVisitor, refresh, register, signInAs, userIdOf } from '../auth/helpers'
import { as } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'
import { ALL_ENDPOINTS, BODILESS_POSTS, BODY_ENDPOINTS, type Callers, send } from './endpoints'

/**
 * Browser and transport (checklist: V3, V14).
 *
 * Already proved elsewhere, and not repeated: every profile, picture and administration write
 * without a CSRF token or with another user's, refused with nothing changed
 * (tests/api/permission-matrix.test.ts); the X-CSRF-Token header readable through CORS from the
 * app's origin, and its preflight (auth/sessions.test.ts). "Hostile names shown as text" in the
 * browser is the browser-journey suite's; here, the API's side: names kept and returned as typed,
 * as JSON, and escaped in the HTML of e-mails.
 */

const t = useTestApp()
let callers: Callers
beforeAll(async () => {
  const [user, admin, target] = await Promise.all([
    quickSignIn(t, { name: 'Browser User' }),
    quickSignIn(t, { role: 'ADMIN', name: 'Browser Admin' }),
    quickUser(t, { name: 'Browser Target' }),
  ])
  callers = { user, admin, targetId: target.id }
})

describe('CSRF on the session calls', () => {
  it.each(['/api/auth/logout', '/api/auth/logout-all'])("%s without the session's own token is a 403, and the session lives on", async (url) => {
    const user = await quickUser(t)
    const session = await signInAs(t, user)
    const otherSessionOfSameUser = await signInAs(t, user)
    const stranger = await quickSignIn(t)
    const ended = await signInAs(t, await quickUser(t))
    await t.request('POST', '/api/auth/logout', { token: ended.accessToken, csrf: ended.csrfToken })

    const wrong = [
      undefined,
      '',
      otherSessionOfSameUser.csrfToken,
      stranger.csrfToken,
      ended.csrfToken,
      session.csrfToken.toUpperCase(),
      `${session.csrfToken} `,
      session.csrfToken.slice(0, -1),
      session.accessToken,
      session.refreshToken,
    ]
    for (const csrf of wrong) {
      const response = await t.request('POST', url, { token: session.accessToken, ...(csrf !== undefined ? { csrf } : {}) })
      expect(response.statusCode, String(csrf)).toBe(403)
      expect(response.json().code).toBe('CSRF_INVALID')
    }
    // Nothing happened: both sessions of the user still work.
    expect((await me(t, session.accessToken)).statusCode).toBe(200)
    expect((await me(t, otherSessionOfSameUser.accessToken)).statusCode).toBe(200)
    expect((await refresh(t, session.refreshToken)).statusCode).toBe(200)
  })
})

describe('CORS', () => {
  const FOREIGN = [
    'https://evil.example',
    'null',
    'http://app.test.evil.example',
    'http://evil.example#http://app.test',
    'http://app.test:8080',
    'https://app.test',
    'http://sub.app.test',
    'HTTP://APP.TEST.evil.example',
  ]
  const noEcho = (response: LightMyRequestResponse, label: string) => {
    expect(response.headers['access-control-allow-origin'], label).toBeUndefined()
    expect(response.headers['access-control-allow-credentials'], label).toBeUndefined()
    for (const value of Object.values(response.headers)) expect(String(value), label).not.toContain('evil')
  }

  it('never echoes a foreign Origin, on any endpoint, in answers or in preflights', async () => {
    for (const endpoint of ALL_ENDPOINTS) {
      for (const origin of FOREIGN) {
        const label = `${endpoint.key} from ${origin}`
        // Unsafe calls carry a body that cannot be parsed: refused before any handler runs.
        const answer = await send(t, endpoint, callers, { headers: { origin }, ...(endpoint.method === 'GET' || endpoint.method === 'DELETE' ? {} : { payload: '{' }) })
        noEcho(answer, label)
        const preflight = await t.request('OPTIONS', endpoint.path(callers), {
          headers: { origin, 'access-control-request-method': endpoint.method, 'access-control-request-headers': 'authorization,content-type,x-csrf-token' },
        })
        noEcho(preflight, `preflight ${label}`)
        expect(preflight.statusCode, label).toBeLessThan(500)
      }
    }
  })

  it('answers its own origin, and says the answer depends on the Origin', async () => {
    const answer = await t.request('GET', '/api/health', { headers: { origin: APP_ORIGIN } })
    expect(answer.headers['access-control-allow-origin']).toBe(APP_ORIGIN)
    expect(String(answer.headers.vary).toLowerCase()).toContain('origin')
  })
})

describe('bodies that are not JSON', () => {
  // The content types a cross-site form can send without a preflight, and a few that look like JSON.
  const TYPES = [
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=xyz',
    'text/json',
    'application/jsonp',
    'application/json-patch+json',
    'application/vnd.api+json',
    'text/html',
  ]

  it.each([...BODY_ENDPOINTS, ...BODILESS_POSTS].map((e) => [e.key, e] as const))(
    '%s: JSON sent as anything but application/json is a 415, changing nothing',
    async (_key, endpoint) => {
      const before = await t.ctx.db.selectFrom('users').selectAll().orderBy('id').execute()
      const payload = JSON.stringify('valid' in endpoint ? (endpoint as (typeof BODY_ENDPOINTS)[number]).valid() : {})
      for (const contentType of TYPES) {
        const response = await send(t, endpoint, callers, { payload, contentType })
        expect(response.statusCode, `${contentType}: ${response.body}`).toBe(415)
        expect(response.json()).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' })
      }
      // A body with no Content-Type at all.
      const untyped = await t.request(endpoint.method, endpoint.path(callers), {
        payload,
        ...(endpoint.as === 'anonymous' ? {} : { token: callers[endpoint.as].accessToken, csrf: callers[endpoint.as].csrfToken }),
      })
      expect(untyped.statusCode).toBe(415)
      expect(await t.ctx.db.selectFrom('users').selectAll().orderBy('id').execute()).toEqual(before)
      // The session that sent them is untouched.
      expect((await me(t, callers.user.accessToken)).statusCode).toBe(200)
    },
  )
})

/** The security headers, checked on one answer. */
function expectStrictHeaders(response: LightMyRequestResponse, label: string) {
  const csp = String(response.headers['content-security-policy'] ?? '')
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values]),
  )
  expect(directives.get('script-src') ?? directives.get('default-src'), `${label}: script-src`).toEqual(["'self'"])
  expect(directives.get('default-src'), label).toEqual(["'self'"])
  expect(directives.get('object-src'), label).toEqual(["'none'"])
  expect(directives.get('frame-ancestors'), label).toEqual(["'none'"])
  expect(directives.get('base-uri'), label).toEqual(["'self'"])
  expect(csp, label).not.toContain('unsafe-eval')
  expect(csp, label).not.toContain('*')
  expect(response.headers['x-content-type-options'], label).toBe('nosniff')
  expect(response.headers['referrer-policy'], label).toMatch(/^(no-referrer|same-origin|strict-origin|strict-origin-when-cross-origin)$/)
  expect(response.headers['x-frame-options'], label).toBe('DENY')
  expect(response.headers['x-powered-by'], label).toBeUndefined()
}

describe('security headers on API answers', () => {
  it('every endpoint, as its caller and anonymously, success or failure: strict CSP, nosniff, Referrer-Policy and no-store', async () => {
    for (const endpoint of ALL_ENDPOINTS) {
      // Signing out as the shared user would end its session for the rest of the file.
      for (const anonymous of BODILESS_POSTS.includes(endpoint) ? [true] : [false, true]) {
        const response = await send(t, endpoint, callers, { anonymous, ...(endpoint.method === 'POST' || endpoint.method === 'PUT' ? { body: {} } : {}) })
        const label = `${endpoint.key} ${anonymous ? 'anonymously' : `as ${endpoint.as}`} (${response.statusCode})`
        expectStrictHeaders(response, label)
        expect(response.headers['cache-control'], label).toBe('no-store')
      }
    }
  })

  it('also on answers made before any route runs: unknown paths, broken escapes, over-long ids, bad JSON, 413, 415', async () => {
    const answers = [
      await t.request('GET', '/api/no-such-thing'),
      await t.request('GET', '/api/admin/users/%E0%A4%A', { token: callers.admin.accessToken }),
      await t.request('GET', '/api/auth/verify-email/%'),
      await t.request('POST', '/api/auth/reset-password/%zz', { body: {} }),
      await t.request('GET', `/api/admin/users/${'a'.repeat(300)}`, { token: callers.admin.accessToken }),
      await t.request('POST', '/api/auth/login', { payload: '{', headers: { 'content-type': 'application/json' } }),
      await t.request('POST', '/api/auth/login', { payload: JSON.stringify({ email: 'x'.repeat(2 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } }),
      await t.request('POST', '/api/auth/login', { payload: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      await t.request('DELETE', '/api/health'),
    ]
    for (const response of answers) {
      const label = `${response.statusCode} ${response.body.slice(0, 80)}`
      expect(response.statusCode, label).toBeGreaterThanOrEqual(400)
      expectStrictHeaders(response, label)
      expect(response.headers['cache-control'], label).toBe('no-store')
      expect(response.headers['content-type'], label).toMatch(/^application\/json/)
      expect(response.json(), label).toMatchObject({ success: false, message: expect.any(String), code: expect.any(String) })
      expect(response.json().requestId, label).toBe(response.headers['x-request-id'])
    }
  })

  it('and on HTTP too broken to be a request: the envelope and the same headers, then the connection closes', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = new URL(address)
    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text))
        let answer = ''
        socket.on('data', (chunk) => (answer += chunk.toString()))
        socket.on('close', () => resolve(answer))
        socket.on('error', reject)
      })
    const broken = [
      // A body longer than its Content-Length: the rest is read as a second, malformed request.
      'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}garbage garbage\r\n\r\n',
      'GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n',
      `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]
    for (const text of broken) {
      const answer = await raw(text)
      const last = answer.slice(answer.lastIndexOf('HTTP/1.1 '))
      const [head = '', body = ''] = last.split('\r\n\r\n')
      const [statusLine, ...lines] = head.split('\r\n')
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
      const label = `${statusLine}: ${body.slice(0, 80)}`
      expect(statusLine, label).toMatch(/^HTTP\/1\.1 4(00|31) /)
      expect(headers['content-security-policy'], label).toContain("frame-ancestors 'none'")
      expect(headers['x-content-type-options'], label).toBe('nosniff')
      expect(headers['cache-control'], label).toBe('no-store')
      expect(JSON.parse(body), label).toEqual({ success: false, message: expect.any(String), code: 'BAD_REQUEST', requestId: headers['x-request-id'] })
    }
  })
})

describe('security headers on the web app', () => {
  let web: Awaited<ReturnType<typeof buildApp>>
  let webDir: string
  const source = path.resolve(import.meta.dirname, '..', '..', '..')
  beforeAll(async () => {
    // The page the server sends, from the sources (the bundle keeps the same <script> tags, all external).
    webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-web-'))
    fs.copyFileSync(path.join(source, 'index.html'), path.join(webDir, 'index.html'))
    fs.copyFileSync(path.join(source, 'public', 'theme.js'), path.join(webDir, 'theme.js'))
    web = await buildApp(t.ctx, { webDir })
    await web.ready()
  })
  afterAll(async () => {
    await web.close()
    fs.rmSync(webDir, { recursive: true, force: true })
  })

  it('serves every page with the strict CSP and the same headers, and the page has no inline script', async () => {
    for (const url of ['/', '/login', '/admin/users', '/reset-password?token=abc', '/verify-email?token=abc&email=a%40b.c']) {
      const response = await web.inject({ method: 'GET', url })
      expect(response.statusCode, url).toBe(200)
      expect(response.headers['content-type']).toMatch(/^text\/html/)
      expectStrictHeaders(response, url)
      const scripts = [...response.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
      expect(scripts.length).toBeGreaterThan(0)
      for (const [, attributes, content] of scripts) {
        expect(attributes, url).toMatch(/\bsrc="\//)
        expect(content!.trim(), url).toBe('')
      }
      expect(response.body).not.toMatch(/\son[a-z]+\s*=/i)
    }
    const script = await web.inject({ method: 'GET', url: '/theme.js' })
    expect(script.headers['content-type']).toMatch(/javascript/)
    expectStrictHeaders(script, '/theme.js')
  })
})

describe('a name written to attack a page', () => {
  const HOSTILE = '<img src=x onerror=alert(1)>'
  const HOSTILE_TOO = '"><script>alert(document.cookie)</script>'

  it('is stored and returned exactly as typed, as JSON, by every call that shows it', async () => {
    const visitor = newVisitor({ name: HOSTILE })
    expect((await register(t, visitor)).statusCode).toBe(201)
    const id = await userIdOf(t, visitor.email)
    const stored = await t.ctx.db.selectFrom('users').select('name').where('id', '=', id).executeTakeFirstOrThrow()
    expect(stored.name).toBe(HOSTILE)

    const user = await quickSignIn(t, { name: 'Renames Self' })
    const renamed = await as(t, user).put('/api/users/profile', { name: HOSTILE_TOO })
    expect(renamed.json().data.name).toBe(HOSTILE_TOO)
    const edited = await as(t, callers.admin).put(`/api/admin/users/${callers.targetId}`, { name: HOSTILE })

    const answers: LightMyRequestResponse[] = [
      renamed,
      edited,
      await as(t, user).get('/api/users/profile'),
      await as(t, callers.admin).get(`/api/admin/users/${callers.targetId}`),
      await as(t, callers.admin).get(`/api/admin/users?search=${encodeURIComponent('onerror')}`),
      await as(t, callers.admin).get(`/api/admin/activity-logs?search=${encodeURIComponent('onerror')}`),
      await as(t, callers.admin).get('/api/admin/stats'),
    ]
    for (const answer of answers) {
      expect(answer.statusCode).toBe(200)
      expect(answer.headers['content-type']).toMatch(/^application\/json/)
      expect(answer.headers['x-content-type-options']).toBe('nosniff')
    }
    expect(answers[4]!.json().data.users.map((u: { name: string }) => u.name)).toEqual(expect.arrayContaining([HOSTILE]))
    const entries = answers[5]!.json().data.activities
    expect(
      entries.some((entry: { activity: string }) => entry.activity === `Updated user Browser Target (${(answers[1]!.json().data as { email: string }).email})`),
    ).toBe(true)
    expect(entries.some((entry: { user: { name: string } | null }) => entry.user?.name === HOSTILE)).toBe(true)
  })

  it('is escaped in the HTML of the e-mails that greet its owner', async () => {
    const visitor = newVisitor({ name: HOSTILE_TOO })
    await register(t, visitor)
    await t.deliverMail()
    const file = t.outbox().find((mail) => mail.to === visitor.email)!.file
    const mail = await PostalMime.parse(fs.readFileSync(path.join(t.config.dataDir, 'outbox', file)))
    expect(mail.text).toContain(`Hello ${HOSTILE_TOO},`)
    expect(mail.html).toContain('Hello &quot;&gt;&lt;script&gt;alert(document.cookie)&lt;/script&gt;,')
    expect(mail.html).not.toContain('<script')
    expect(mail.subject).not.toContain('<')
  })
})
