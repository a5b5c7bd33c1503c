import crypto from 'node:crypto'
import net from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, useTestApp } from '../support/test-app'
import { onPostgres } from '../support/test-database'
import { quickUser } from './helpers/users'

/**
 * GET /metrics: Prometheus text with Node's runtime metrics, request
 * durations by route pattern and status, sign-in outcomes, the hash queue, the mail queue and its
 * failures, and the PostgreSQL pool; open on loopback only, elsewhere with METRICS_TOKEN.
 */

/** The value of one sample, e.g. sample(text, 'accounts_sign_ins_total', { outcome: 'success' }). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match || match[1] !== name) continue
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]))
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3])
  }
  return undefined
}

const TOKEN = crypto.randomBytes(32).toString('hex')

describe('metrics', () => {
  let unreachableSmtp = 0
  beforeAll(async () => {
    const probe = net.createServer()
    unreachableSmtp = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as net.AddressInfo).port)))
    await new Promise<void>((resolve) => probe.close(() => resolve()))
  })
  const t = useTestApp(() => ({ METRICS_TOKEN: TOKEN, SMTP_URL: `smtp://127.0.0.1:${unreachableSmtp}` }))

  const scrape = async () => {
    const response = await t.request('GET', '/metrics')
    expect(response.statusCode, response.body).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(response.headers['cache-control']).toBe('no-store')
    return response.body
  }

  it("shows Node's runtime metrics", async () => {
    const text = await scrape()
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(sample(text, name), name).toBeGreaterThanOrEqual(0)
    }
  })

  it('times requests by route pattern and status, never by the raw URL', async () => {
    const user = await t.signIn()
    for (let i = 0; i < 3; i++) expect((await t.request('GET', '/api/auth/me', { token: user.accessToken })).statusCode).toBe(200)
    expect((await t.request('GET', '/api/auth/me')).statusCode).toBe(401)
    const secretLooking = crypto.randomBytes(12).toString('hex')
    expect((await t.request('GET', `/api/users/pictures/${secretLooking}.webp`)).statusCode).toBe(404)
    expect((await t.request('GET', `/api/no-such-${secretLooking}`)).statusCode).toBe(404)

    const text = await scrape()
    const me = { method: 'GET', route: '/api/auth/me', status_code: '200' }
    expect(sample(text, 'http_request_duration_seconds_count', me)).toBe(3)
    expect(sample(text, 'http_request_duration_seconds_bucket', { ...me, le: '+Inf' })).toBe(3)
    expect(sample(text, 'http_request_duration_seconds_sum', me)).toBeGreaterThan(0)
    expect(sample(text, 'http_request_duration_seconds_count', { ...me, status_code: '401' })).toBe(1)
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/users/pictures/:file', status_code: '404' })).toBe(1)
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status_code: '404' })).toBeGreaterThanOrEqual(1)
    expect(text).not.toContain(secretLooking)
  })

  it("labels a request no route took with its method only when it is one of HTTP's usual ones", async () => {
    const methods = ['PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'PURGE']
    for (const method of methods) {
      expect((await t.app.inject({ method: method as 'GET', url: `/api/no-such-${method.toLowerCase()}` })).statusCode).toBe(404)
    }
    expect((await t.app.inject({ method: 'DELETE', url: '/no-such-address' })).statusCode).toBe(404)
    const text = await scrape()
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'other', route: 'unmatched', status_code: '404' })).toBe(methods.length)
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'DELETE', route: 'unmatched', status_code: '404' })).toBeGreaterThanOrEqual(1)
    for (const method of methods) expect(text).not.toContain(`method="${method}"`)
  })

  it('counts sign-in outcomes', async () => {
    const before = await scrape()
    const count = (text: string, outcome: string) => sample(text, 'accounts_sign_ins_total', { outcome }) ?? Number.NaN
    const user = await quickUser(t)
    const suspended = await quickUser(t, { status: 'SUSPENDED' })
    expect((await t.login(user.email, user.password)).statusCode).toBe(200)
    expect((await t.login(user.email, 'Wrong-Password-1!')).statusCode).toBe(401)
    expect((await t.login(`nobody-${crypto.randomUUID()}@example.com`, 'Wrong-Password-1!')).statusCode).toBe(401)
    expect((await t.login(suspended.email, suspended.password)).statusCode).toBe(403)
    expect((await t.request('POST', '/api/auth/login', { body: { email: 'not an address', password: 'x' } })).statusCode).toBe(400)
    const after = await scrape()
    expect(count(after, 'success') - count(before, 'success')).toBe(1)
    expect(count(after, 'invalid_credentials') - count(before, 'invalid_credentials')).toBe(2)
    expect(count(after, 'account_suspended') - count(before, 'account_suspended')).toBe(1)
    expect(count(after, 'invalid_request') - count(before, 'invalid_request')).toBe(1)
    expect(count(after, 'throttled')).toBe(count(before, 'throttled'))
  })

  it('shows the password-hash queue', async () => {
    const text = await scrape()
    expect(sample(text, 'accounts_password_hash_queue', { state: 'running' })).toBe(0)
    expect(sample(text, 'accounts_password_hash_queue', { state: 'waiting' })).toBe(0)
    expect(sample(text, 'accounts_password_hash_queue_limit')).toBe(512)
    expect(sample(text, 'accounts_password_hash_rejected_total')).toBe(0)
  })

  it('shows the mail queue depth and counts failed sends', async () => {
    const jobs = (text: string) =>
      (sample(text, 'accounts_mail_queue_jobs', { state: 'due' }) ?? NaN) + (sample(text, 'accounts_mail_queue_jobs', { state: 'scheduled' }) ?? NaN)
    const before = await scrape()
    const user = await quickUser(t)
    expect((await t.request('POST', '/api/auth/forgot-password', { body: { email: user.email } })).statusCode).toBe(200)
    // SMTP_URL points at a port nothing listens on: the reset mail fails and is rescheduled.
    await t.deliverMail()
    const after = await scrape()
    expect(jobs(after)).toBe(jobs(before) + 1)
    expect(sample(after, 'accounts_mail_queue_jobs', { state: 'due' })).toBe(0)
    expect(sample(after, 'accounts_mail_send_attempts_total', { outcome: 'retry' })).toBeGreaterThan(
      sample(before, 'accounts_mail_send_attempts_total', { outcome: 'retry' })!,
    )
    expect(sample(after, 'accounts_mail_send_attempts_total', { outcome: 'sent' })).toBe(0)

    // Once its retry is due, it counts as due again.
    t.clock.advance(3600)
    expect(sample(await scrape(), 'accounts_mail_queue_jobs', { state: 'due' })).toBeGreaterThanOrEqual(1)
  })

  it.runIf(onPostgres)('shows the PostgreSQL pool', async () => {
    // A request that needs the database, so the pool holds a connection (idle ones close after 30 s).
    expect((await t.request('GET', '/api/health')).statusCode).toBe(200)
    const text = await scrape()
    expect(sample(text, 'accounts_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'accounts_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0)
    // Scraping itself asks the pool for a connection (the mail queue's depth), so one may be waiting.
    expect(sample(text, 'accounts_db_pool_connections', { state: 'waiting' })).toBeGreaterThanOrEqual(0)
    expect(sample(text, 'accounts_db_pool_max')).toBe(10)
  })

  it.skipIf(onPostgres)('has no pool metrics on the embedded database, which has one connection', async () => {
    expect(sample(await scrape(), 'accounts_db_pool_connections', { state: 'total' })).toBeUndefined()
  })

  describe('who may read them', () => {
    const elsewhere = '203.0.113.9'

    it('refuses a scraper elsewhere without the token: 401 in the envelope', async () => {
      for (const headers of <Record<string, string>[]>[
        {},
        { authorization: 'Bearer wrong-token' },
        { authorization: `Basic ${TOKEN}` },
        { authorization: `Bearer ${TOKEN}x` },
      ]) {
        const response = await t.request('GET', '/metrics', { remoteAddress: elsewhere, headers })
        expect(response.statusCode).toBe(401)
        expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED', requestId: expect.any(String) })
        expect(response.headers['www-authenticate']).toBe('Bearer realm="metrics"')
        expect(response.body).not.toContain('http_request_duration_seconds')
      }
    })

    it('lets a scraper elsewhere in with the token', async () => {
      const response = await t.request('GET', '/metrics', { remoteAddress: elsewhere, headers: { authorization: `Bearer ${TOKEN}` } })
      expect(response.statusCode).toBe(200)
      expect(response.body).toContain('accounts_sign_ins_total')
    })

    it('treats a request a proxy forwarded from loopback as coming from elsewhere', async () => {
      for (const headers of <Record<string, string>[]>[
        { 'x-forwarded-for': '198.51.100.4' },
        { forwarded: 'for=198.51.100.4' },
        { 'x-real-ip': '198.51.100.4' },
        { 'x-forwarded-for': '127.0.0.1' },
      ]) {
        expect((await t.request('GET', '/metrics', { headers })).statusCode, JSON.stringify(headers)).toBe(401)
      }
      expect((await t.request('GET', '/metrics', { remoteAddress: '::1' })).statusCode).toBe(200)
      expect((await t.request('GET', '/metrics', { remoteAddress: '::ffff:127.0.0.1' })).statusCode).toBe(200)
      expect((await t.request('GET', '/metrics', { remoteAddress: '::ffff:10.0.0.1' })).statusCode).toBe(401)
    })

    it('without METRICS_TOKEN, is open on loopback only', async () => {
      const plain = await createTestApp()
      try {
        expect((await plain.request('GET', '/metrics')).statusCode).toBe(200)
        expect((await plain.request('GET', '/metrics', { remoteAddress: elsewhere, headers: { authorization: 'Bearer anything' } })).statusCode).toBe(401)
      } finally {
        await plain.close()
      }
    })
  })

  it('refuses a METRICS_TOKEN too short to be a secret', async () => {
    await expect(createTestApp({ METRICS_TOKEN: 'short' })).rejects.toThrow(/METRICS_TOKEN: must be at least 32 characters/)
  })
})
