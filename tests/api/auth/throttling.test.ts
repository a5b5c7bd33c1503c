import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { RULES } from '~server/rate-limit/rules'
import { useTestApp, uniqueEmail } from '../../support/test-app'
import { activitiesOf, expectFailure, forgotPassword, newVisitor, register, resetLink, resetPassword, tokenOf } from './helpers'

/**
 * Throttling with the counters where the product keeps them: the database, or Redis when
 * TEST_REDIS_URL is set. Each story uses client addresses of its own, so stories do not share
 * counters.
 */
const store = process.env.TEST_REDIS_URL ? 'Redis' : 'the database'
const WRONG = 'Wrong-Password-1!'

let net = 0
/** A block of client addresses no other story uses: 10.<n>.0.1, 10.<n>.0.2, ... */
const addresses = () => {
  const block = ++net
  return (host: number) => `10.${block}.${Math.floor(host / 250)}.${(host % 250) + 1}`
}

function expectThrottled(response: LightMyRequestResponse, windowSeconds: number) {
  expectFailure(response, 429, 'RATE_LIMITED', 'Too many attempts. Please wait a while and try again.')
  const retryAfter = Number(response.headers['retry-after'])
  expect(Number.isInteger(retryAfter)).toBe(true)
  expect(retryAfter).toBeGreaterThan(0)
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds)
}

const statuses = (responses: LightMyRequestResponse[]) => responses.map((r) => r.statusCode)
const count = (responses: LightMyRequestResponse[], status: number) => responses.filter((r) => r.statusCode === status).length

describe(`throttling, with counters in ${store}`, () => {
  const t = useTestApp({ RATE_LIMIT: 'on' })

  describe('signing in', () => {
    it('counts 20 parallel wrong passwords on one account exactly: 10 are checked, 10 are turned away', async () => {
      const user = await t.createUser()
      const from = addresses()
      const attempts = await Promise.all(Array.from({ length: 20 }, (_, i) => t.login(user.email, WRONG, from(i))))

      expect(RULES.signInByEmail.max).toBe(10)
      expect(count(attempts, 401), statuses(attempts).join()).toBe(10)
      expect(count(attempts, 429), statuses(attempts).join()).toBe(10)
      for (const attempt of attempts.filter((a) => a.statusCode === 429)) expectThrottled(attempt, RULES.signInByEmail.windowSeconds)
      const failures = (await activitiesOf(t, user.id)).filter((a) => a.activity === 'Failed login')
      expect(failures).toHaveLength(10)
    })

    it('cannot be escaped by changing client address or forging X-Forwarded-For, even with the right password', async () => {
      const user = await t.createUser()
      const from = addresses()
      for (let i = 0; i < RULES.signInByEmail.max; i++) {
        const response = await t.request('POST', '/api/auth/login', {
          body: { email: i % 2 ? user.email.toUpperCase() : user.email, password: WRONG },
          remoteAddress: from(i),
          headers: { 'x-forwarded-for': `172.16.${i}.1` },
        })
        expectFailure(response, 401, 'INVALID_CREDENTIALS')
      }
      const owner = await t.request('POST', '/api/auth/login', {
        body: { email: user.email, password: user.password },
        remoteAddress: from(99),
        headers: { 'x-forwarded-for': '172.16.200.1' },
      })
      expectThrottled(owner, RULES.signInByEmail.windowSeconds)
    })

    it('does not count the owner against the account once they sign in', async () => {
      const user = await t.createUser()
      const from = addresses()
      for (let i = 0; i < RULES.signInByEmail.max - 1; i++) await t.login(user.email, WRONG, from(0))
      expect((await t.login(user.email, user.password, from(0))).statusCode).toBe(200)
      for (let i = 0; i < RULES.signInByEmail.max; i++) expect((await t.login(user.email, WRONG, from(1))).statusCode).toBe(401)
    })

    it('limits failures from one client address across accounts, and believes no X-Forwarded-For without TRUST_PROXY', async () => {
      const from = addresses()
      const guesses = Array.from({ length: RULES.signInByIp.max }, (_, i) =>
        t.request('POST', '/api/auth/login', {
          body: { email: uniqueEmail('guess'), password: WRONG },
          remoteAddress: from(0),
          headers: { 'x-forwarded-for': `192.168.${i % 250}.${i}` },
        }),
      )
      const answers = await Promise.all(guesses)
      expect(count(answers, 401)).toBe(RULES.signInByIp.max)
      const next = await t.request('POST', '/api/auth/login', {
        body: { email: uniqueEmail('guess'), password: WRONG },
        remoteAddress: from(0),
        headers: { 'x-forwarded-for': '192.168.250.250' },
      })
      expectThrottled(next, RULES.signInByIp.windowSeconds)
      expectFailure(await t.login(uniqueEmail('guess'), WRONG, from(1)), 401, 'INVALID_CREDENTIALS')
    })

    it('records the connecting address, not a forged X-Forwarded-For', async () => {
      const user = await t.createUser()
      const from = addresses()
      await t.request('POST', '/api/auth/login', {
        body: { email: user.email, password: user.password },
        remoteAddress: from(0),
        headers: { 'x-forwarded-for': '203.0.113.66' },
      })
      expect((await activitiesOf(t, user.id)).at(-1)).toMatchObject({ activity: 'Logged in', ip_address: from(0) })
    })
  })

  describe('a throttled account owner', () => {
    it('can still reset the password, and then sign in with it', async () => {
      const user = await t.createUser()
      const from = addresses()
      await Promise.all(Array.from({ length: RULES.signInByEmail.max }, (_, i) => t.login(user.email, WRONG, from(i))))
      expectThrottled(await t.login(user.email, user.password, from(50)), RULES.signInByEmail.windowSeconds)

      expect((await forgotPassword(t, user.email, from(51))).statusCode).toBe(200)
      const reset = await resetPassword(t, tokenOf(await resetLink(t, user.email)), 'Back-In-Business-9!', from(51))
      expect(reset.statusCode, reset.body).toBe(200)
      expect((await t.login(user.email, 'Back-In-Business-9!', from(52))).statusCode).toBe(200)
    })
  })

  describe('registering', () => {
    it('limits registrations from one client address', async () => {
      const from = addresses()
      const answers = []
      for (let i = 0; i < RULES.registerByIp.max; i++) {
        answers.push(await register(t, newVisitor(), { remoteAddress: from(0), headers: { 'x-forwarded-for': `192.0.2.${i}` } }))
      }
      expect(count(answers, 201)).toBe(RULES.registerByIp.max)
      const visitor = newVisitor()
      expectThrottled(await register(t, visitor, { remoteAddress: from(0) }), RULES.registerByIp.windowSeconds)
      expect(await t.ctx.db.selectFrom('users').select('id').where('email', '=', visitor.email).execute()).toEqual([])
      expect((await register(t, visitor, { remoteAddress: from(1) })).statusCode).toBe(201)
    })

    it('limits registrations of one address, whoever sends them', async () => {
      const from = addresses()
      const visitor = newVisitor()
      for (let i = 0; i < RULES.registerByEmail.max; i++) {
        expect((await register(t, visitor, { remoteAddress: from(i) })).statusCode).toBe(201)
      }
      expectThrottled(await register(t, visitor, { remoteAddress: from(99) }), RULES.registerByEmail.windowSeconds)
    })
  })

  describe('asking for mail again and again', () => {
    const resend = (email: string, remoteAddress: string) => t.request('POST', '/api/auth/resend-verification', { body: { email }, remoteAddress })

    it('limits resending from one client address', async () => {
      const from = addresses()
      for (let i = 0; i < RULES.resendVerificationByIp.max; i++) expect((await resend(uniqueEmail('resend'), from(0))).statusCode).toBe(200)
      expectThrottled(await resend(uniqueEmail('resend'), from(0)), RULES.resendVerificationByIp.windowSeconds)
      expect((await resend(uniqueEmail('resend'), from(1))).statusCode).toBe(200)
    })

    it('limits resending to one address', async () => {
      const from = addresses()
      const email = uniqueEmail('resend')
      for (let i = 0; i < RULES.resendVerificationByEmail.max; i++) expect((await resend(email, from(i))).statusCode).toBe(200)
      expectThrottled(await resend(email, from(99)), RULES.resendVerificationByEmail.windowSeconds)
    })

    it('limits reset requests from one client address, forged X-Forwarded-For or not', async () => {
      const from = addresses()
      for (let i = 0; i < RULES.forgotPasswordByIp.max; i++) {
        const response = await t.request('POST', '/api/auth/forgot-password', {
          body: { email: uniqueEmail('forgot') },
          remoteAddress: from(0),
          headers: { 'x-forwarded-for': `198.18.0.${i}` },
        })
        expect(response.statusCode).toBe(200)
      }
      expectThrottled(await forgotPassword(t, uniqueEmail('forgot'), from(0)), RULES.forgotPasswordByIp.windowSeconds)
      expect((await forgotPassword(t, uniqueEmail('forgot'), from(1))).statusCode).toBe(200)
    })

    it('limits reset requests for one address, known or not, alike', async () => {
      const from = addresses()
      const known = await t.createUser()
      const unknown = uniqueEmail('forgot')
      for (const email of [known.email, unknown]) {
        for (let i = 0; i < RULES.forgotPasswordByEmail.max; i++) expect((await forgotPassword(t, email, from(i))).statusCode).toBe(200)
        expectThrottled(await forgotPassword(t, email, from(99)), RULES.forgotPasswordByEmail.windowSeconds)
      }
    })
  })

  describe('guessing links', () => {
    it('turns away reset-link guesses from one client address, and then even a valid link from it', async () => {
      const from = addresses()
      for (let i = 0; i < RULES.resetPasswordByIp.max; i++) {
        const guess = Buffer.from(`guess-${i}`.padEnd(32, '.')).toString('base64url')
        expectFailure(await resetPassword(t, guess, 'Guessing-Game-7!', from(0)), 400, 'INVALID_TOKEN')
      }
      const user = await t.createUser()
      await forgotPassword(t, user.email, from(1))
      const token = tokenOf(await resetLink(t, user.email))
      expectThrottled(await resetPassword(t, token, 'Guessing-Game-7!', from(0)), RULES.resetPasswordByIp.windowSeconds)
      expect((await resetPassword(t, token, 'Guessing-Game-7!', from(1))).statusCode).toBe(200)
    })

    it('turns away verification-link guesses from one client address', async () => {
      const from = addresses()
      for (let i = 0; i < RULES.verifyEmailByIp.max; i++) {
        const guess = Buffer.from(`guess-${i}`.padEnd(32, '.')).toString('base64url')
        const response = await t.request('GET', `/api/auth/verify-email/${guess}`, { remoteAddress: from(0) })
        expectFailure(response, 400, 'INVALID_TOKEN')
      }
      const response = await t.request('GET', `/api/auth/verify-email/${'A'.repeat(43)}`, { remoteAddress: from(0) })
      expectThrottled(response, RULES.verifyEmailByIp.windowSeconds)
    })
  })
})

describe('behind a trusted proxy (TRUST_PROXY)', () => {
  const t = useTestApp({ RATE_LIMIT: 'on', TRUST_PROXY: '10.250.0.1' })

  const viaProxy = (email: string, client: string) =>
    t.request('POST', '/api/auth/forgot-password', {
      body: { email },
      remoteAddress: '10.250.0.1',
      headers: { 'x-forwarded-for': client },
    })

  it('believes the forwarded client address from the proxy, and only from the proxy', async () => {
    const user = await t.createUser()
    await t.request('POST', '/api/auth/login', {
      body: { email: user.email, password: user.password },
      remoteAddress: '10.250.0.1',
      headers: { 'x-forwarded-for': '203.0.113.10' },
    })
    await t.request('POST', '/api/auth/login', {
      body: { email: user.email, password: user.password },
      remoteAddress: '10.250.0.2',
      headers: { 'x-forwarded-for': '203.0.113.11' },
    })
    const ips = (await activitiesOf(t, user.id)).filter((a) => a.activity === 'Logged in').map((a) => a.ip_address)
    expect(ips).toEqual(['203.0.113.10', '10.250.0.2'])
  })

  it('counts each forwarded client separately', async () => {
    for (let i = 0; i < RULES.forgotPasswordByIp.max; i++) expect((await viaProxy(uniqueEmail('proxied'), '203.0.113.20')).statusCode).toBe(200)
    expectThrottled(await viaProxy(uniqueEmail('proxied'), '203.0.113.20'), RULES.forgotPasswordByIp.windowSeconds)
    expect((await viaProxy(uniqueEmail('proxied'), '203.0.113.21')).statusCode).toBe(200)
  })
})
