import net from 'node:net'
import { Kysely, PostgresDialect } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AppContext } from '~server/context'
import type { Database } from '~server/db/types'
import { createTestApp, useTestApp } from '../support/test-app'

/**
 * Liveness and readiness. A real database outage is in
 * tests/system/database-outage.test.ts; here the database is closed under the app, and Redis is
 * a port nothing listens on.
 */
describe('liveness and readiness', () => {
  const t = useTestApp()

  it('live: the process answers', async () => {
    const response = await t.request('GET', '/api/health/live')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ success: true, data: { status: 'live' } })
  })

  it('ready: the database answers (and Redis is not used without throttling in it)', async () => {
    const response = await t.request('GET', '/api/health/ready')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ success: true, data: { status: 'ready', database: 'reachable', redis: 'not used' } })
  })

  it('not ready while start-up still works after the listen (the first administrator), while liveness stays 200', async () => {
    t.ctx.startingUp = true
    try {
      const ready = await t.request('GET', '/api/health/ready')
      expect(ready.statusCode).toBe(503)
      expect(ready.json()).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', message: 'Not ready: still starting up' })
      expect((await t.request('GET', '/api/health/live')).statusCode).toBe(200)
    } finally {
      t.ctx.startingUp = false
    }
    expect((await t.request('GET', '/api/health/ready')).statusCode).toBe(200)
  })

  it('keeps the existing /api/health', async () => {
    expect((await t.request('GET', '/api/health')).statusCode).toBe(200)
  })

  it('unknown routes under /api stay the envelope 404', async () => {
    for (const url of ['/api/health/nope', '/api/nope', '/api/docs/nope/deeper', '/api']) {
      const response = await t.request('GET', url)
      expect(response.statusCode, url).toBe(404)
      expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND', requestId: expect.any(String) })
    }
  })
})

describe('readiness with Redis out of reach', () => {
  let port = 0
  beforeAll(async () => {
    const probe = net.createServer()
    port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as net.AddressInfo).port)))
    await new Promise<void>((resolve) => probe.close(() => resolve()))
  })
  const t = useTestApp(() => ({ RATE_LIMIT: 'on', REDIS_URL: `redis://127.0.0.1:${port}` }))

  it('is a 503 naming Redis, while liveness stays 200', async () => {
    const ready = await t.request('GET', '/api/health/ready')
    expect(ready.statusCode).toBe(503)
    expect(ready.json()).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', message: 'Not ready: Redis cannot be reached' })
    expect(ready.headers['retry-after']).toBeTruthy()
    expect((await t.request('GET', '/api/health/live')).statusCode).toBe(200)
  })
})

describe('readiness with the database out of reach', () => {
  it('is a 503 naming the database, while liveness stays 200', async () => {
    const t = await createTestApp()
    const ctx = t.ctx as { db: AppContext['db'] }
    const real = ctx.db
    // A connection pool that cannot connect, as when PostgreSQL is down.
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
    ctx.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: { connect: () => Promise.reject(refused), end: async () => {} } }) })
    try {
      const ready = await t.request('GET', '/api/health/ready')
      expect(ready.statusCode).toBe(503)
      expect(ready.json()).toMatchObject({ success: false, message: 'Not ready: the database cannot be reached' })
      expect((await t.request('GET', '/api/health/live')).statusCode).toBe(200)
    } finally {
      ctx.db = real
      await t.close()
    }
  })
})
