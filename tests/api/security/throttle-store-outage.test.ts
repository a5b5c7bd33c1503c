import net from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { startSession } from '~server/auth/sessions'
import { useTestApp } from '../../support/test-app'
import { quickUser } from '../helpers/users'

/**
 * Faults: the throttling store (Redis, REDIS_URL) out of reach. Like a database out of reach
 * (tests/system/database-outage.test.ts), every call that must count an attempt is a prompt 503
 * with Retry-After, never a 500 and never a hang, and it fails closed: no sign-in goes uncounted.
 * Calls that count nothing keep working.
 */

let closedPort = 0
beforeAll(async () => {
  // A port nothing listens on: Redis "went away".
  const probe = net.createServer()
  closedPort = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as net.AddressInfo).port)))
  await new Promise<void>((resolve) => probe.close(() => resolve()))
})
const t = useTestApp(() => ({ RATE_LIMIT: 'on', REDIS_URL: `redis://127.0.0.1:${closedPort}` }))

describe('with the throttling store out of reach', () => {
  it('answers every throttled call with a prompt 503 and Retry-After, and logs why', async () => {
    const user = await quickUser(t)
    const calls = [
      () => t.login(user.email, user.password),
      () => t.login(user.email, 'Wrong-Password-1!'),
      () =>
        t.request('POST', '/api/auth/register', {
          body: { name: 'New Person', email: 'new.person@example.com', password: 'Fresh-Start-2026!', confirmPassword: 'Fresh-Start-2026!' },
        }),
      () => t.request('POST', '/api/auth/forgot-password', { body: { email: user.email } }),
      () => t.request('POST', '/api/auth/resend-verification', { body: { email: user.email } }),
      () => t.request('POST', `/api/auth/reset-password/${'A'.repeat(43)}`, { body: { password: 'Fresh-Start-2026!', confirmPassword: 'Fresh-Start-2026!' } }),
      () => t.request('GET', `/api/auth/verify-email/${'A'.repeat(43)}`),
    ]
    for (const call of calls) {
      const started = performance.now()
      const response = await call()
      expect(response.statusCode, response.body).toBe(503)
      expect(response.json()).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', requestId: expect.any(String) })
      expect(response.headers['retry-after']).toBeTruthy()
      expect(response.body).not.toMatch(/redis|stream|ECONNREFUSED|127\.0\.0\.1/i)
      expect(performance.now() - started).toBeLessThan(5_000)
    }
    expect(t.logs.filter((line) => line.includes('"level":50'))).toEqual([])
    expect(t.logs.some((line) => line.includes('service unavailable') && line.includes('"cause"'))).toBe(true)
    // Nothing was created while the attempts could not be counted.
    expect(await t.ctx.db.selectFrom('users').select('id').where('email', '=', 'new.person@example.com').execute()).toEqual([])
  })

  it('keeps serving calls that count nothing: people already signed in carry on', async () => {
    const user = await quickUser(t, { name: 'Already Signed In' })
    // A session from before the outage.
    const { sessionId } = await startSession(t.ctx.db, {
      userId: user.id,
      ip: null,
      userAgent: null,
      now: t.clock.now(),
      lifetimes: t.ctx.lifetimes,
      entry: { kind: 'logged in', activity: 'Logged in' },
    })
    const accessToken = t.ctx.accessTokens.sign({ userId: user.id, sessionId })
    const csrf = t.ctx.csrf.forSession(sessionId)
    expect((await t.request('GET', '/api/health')).statusCode).toBe(200)
    expect((await t.request('GET', '/api/auth/me', { token: accessToken })).statusCode).toBe(200)
    const renamed = await t.request('PUT', '/api/users/profile', { token: accessToken, csrf, body: { name: 'Carried On' } })
    expect(renamed.statusCode, renamed.body).toBe(200)
  })
})
