import { beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '~server/app'
import { type SignedIn, useTestApp } from '../../support/test-app'
import { forgotPassword, resetLink, tokenOf } from '../auth/helpers'
import { quickSignIn, quickUser } from '../helpers/users'

/**
 * Tokens in query strings, paths and headers (decision 0304). Before
 * the fix, `GET /api/auth/me?access_token=…` wrote the token to the log in full: only `token`,
 * `refreshToken`, `accessToken` and `password` were cut out of query strings. Now every query value
 * is cut unless its parameter is a list's paging or filter, and anything shaped like a JWT or one of
 * the product's tokens is cut from every line, whatever wrote it.
 */

const t = useTestApp({ LOG_LEVEL: 'trace' })
let user: SignedIn
let secrets: string[]

beforeAll(async () => {
  user = await quickSignIn(t)
  const target = await quickUser(t)
  await forgotPassword(t, target.email)
  secrets = [user.accessToken, user.refreshToken, user.csrfToken, tokenOf(await resetLink(t, target.email))]
})

/** Every secret, and a recognisable piece of it, absent from every line logged since `before`. */
function expectNoSecretSince(before: number) {
  const lines = t.logs.slice(before)
  expect(lines.length).toBeGreaterThan(0)
  for (const secret of secrets) {
    for (const piece of [secret, secret.slice(0, 20), secret.slice(-20), encodeURIComponent(secret).slice(4, 24)]) {
      const line = lines.find((l) => l.includes(piece))
      expect(line, `a piece of a token in the log: ${line}`).toBeUndefined()
    }
  }
}

const PARAMETER_NAMES = [
  'access_token',
  'accessToken',
  'token',
  'refresh_token',
  'id_token',
  'code',
  'state',
  'key',
  'api_key',
  'jwt',
  'session',
  't',
  'x',
  'Authorization',
  'ACCESS_TOKEN',
  'acc%65ss_token',
  'a[b]',
  '',
  // Names that are kept in the log for their usual values, but not for a token's.
  'search',
  'page',
  'status',
  'role',
]

describe('a token under any query parameter name', () => {
  it.each(PARAMETER_NAMES)('"%s" is absent from the log, wherever the request goes', async (name) => {
    const before = t.logs.length
    for (const secret of secrets) {
      for (const query of [`${name}=${secret}`, `${name}=${encodeURIComponent(secret)}`, `page=1&${name}=${secret}&limit=5`, `${name}=${secret}&${name}=${secret}`]) {
        await t.request('GET', `/api/auth/me?${query}`)
        await t.request('GET', `/api/auth/me?${query}`, { token: user.accessToken })
        await t.request('GET', `/api/admin/users?${query}`, { token: user.accessToken })
        await t.request('GET', `/reset-password?${query}`)
        await t.request('POST', `/api/auth/refresh-token?${query}`, { body: { refreshToken: 'not-a-real-one' } })
      }
    }
    expectNoSecretSince(before)
  })

  it('as a parameter of its own, without a name or a value, in a fragment, or after a broken escape', async () => {
    const before = t.logs.length
    for (const secret of secrets) {
      await t.request('GET', `/api/health?${secret}`)
      await t.request('GET', `/api/health?a=1&${secret}&b=2`)
      await t.request('GET', `/api/health?q=%zz${secret}`)
      await t.request('GET', `/api/health?q=%E0%A4%A${secret}`)
      await t.request('GET', `/api/health#${secret}`)
    }
    expectNoSecretSince(before)
  })

  it("leaves the lists' paging and filters readable, so the log still says what was asked", async () => {
    const before = t.logs.length
    await t.request('GET', '/api/admin/users?page=2&limit=5&search=ada&role=ADMIN&status=ACTIVE', { token: user.accessToken })
    await t.request('GET', '/api/activity?activity=logged%20in&page=1', { token: user.accessToken })
    await t.request('GET', '/api/health?probe=hello&page=3')
    const logged = t.logs.slice(before).join('\n')
    expect(logged).toContain('/api/admin/users?page=2&limit=5&search=ada&role=ADMIN&status=ACTIVE')
    expect(logged).toContain('/api/activity?activity=logged%20in&page=1')
    expect(logged).toContain('/api/health?probe=[redacted]&page=3')
  })
})

describe('a token in a path or a header', () => {
  it("an invitation's token is absent from the log, whether the acceptance fails or succeeds", async () => {
    const admin = await quickSignIn(t, { role: 'ADMIN' })
    const email = `invitee-${Date.now()}@example.com`
    const invited = await t.request('POST', '/api/admin/users', { token: admin.accessToken, csrf: admin.csrfToken, body: { name: 'Log Invitee', email, role: 'CLIENT' } })
    expect(invited.statusCode).toBe(201)
    await t.deliverMail()
    const link = t
      .outbox()
      .find((mail) => mail.to === email)!
      .links.find((address) => address.includes('/accept-invite'))!
    const token = new URL(link).searchParams.get('token')!
    const before = t.logs.length
    await t.request('POST', `/api/auth/accept-invite/${token}`, { body: { password: 'short', confirmPassword: 'short' } })
    const accepted = await t.request('POST', `/api/auth/accept-invite/${token}`, { body: { password: 'Fresh-Start-2026!', confirmPassword: 'Fresh-Start-2026!' } })
    expect(accepted.statusCode).toBe(200)
    const lines = t.logs.slice(before)
    expect(lines.join('\n')).toContain('/api/auth/accept-invite/[redacted]')
    for (const piece of [token, token.slice(0, 20), token.slice(-20)]) expect(lines.find((line) => line.includes(piece))).toBeUndefined()
  })

  it('is absent from the log in any path, known route or not', async () => {
    const before = t.logs.length
    for (const secret of secrets) {
      await t.request('GET', `/api/auth/me/${secret}`, { token: user.accessToken })
      await t.request('GET', `/api/admin/users/${secret}`, { token: user.accessToken })
      await t.request('GET', `/api/users/pictures/${secret}.webp`)
      await t.request('GET', `/${secret}`)
      await t.request('GET', `/assets/${secret}.js`)
      await t.request('GET', `/sessions/${secret}/end`)
    }
    expectNoSecretSince(before)
  })

  it('is absent from the log in any header, the ones the product reads and others', async () => {
    const before = t.logs.length
    for (const secret of secrets) {
      await t.request('GET', '/api/auth/me', { headers: { authorization: `Bearer ${secret}` } })
      await t.request('GET', '/api/auth/me', { headers: { authorization: secret } })
      await t.request('POST', '/api/auth/logout', { token: user.accessToken, headers: { 'x-csrf-token': `${secret}x` } })
      await t.request('GET', '/api/health', { headers: { cookie: `session=${secret}`, 'x-api-key': secret, referer: `http://app.test/reset-password?token=${secret}` } })
    }
    expectNoSecretSince(before)
  })

  it('is absent even from an error that quotes it, as a line of any kind', async () => {
    const app = await buildApp(t.ctx)
    // A route made for this test only (outside /api, which takes only routes of the permission table).
    app.get('/test-only/quotes-a-token', async (request) => {
      const secret = secrets[Number((request.query as { n: string }).n)]!
      request.log.info({ presented: secret, nested: { deeper: [secret] } }, `looked up ${secret}`)
      throw new Error(`no session for ${secret} (Bearer ${secret})`)
    })
    await app.ready()
    try {
      const before = t.logs.length
      for (let n = 0; n < secrets.length; n++) {
        expect((await app.inject({ method: 'GET', url: `/test-only/quotes-a-token?n=${n}` })).statusCode).toBe(500)
      }
      expectNoSecretSince(before)
      // The lines are still there, still JSON, with the token's place marked.
      const lines = t.logs.slice(before).map((line) => JSON.parse(line) as { msg?: string; err?: { message: string } })
      expect(lines.filter((line) => line.msg?.startsWith('looked up [redacted]'))).toHaveLength(secrets.length)
      expect(lines.filter((line) => line.err?.message === 'no session for [redacted] (Bearer [redacted])')).toHaveLength(secrets.length)
    } finally {
      await app.close()
    }
  })
})
