import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app'
import { as, expectFailure, expectSuccess } from './helpers/requests'
import { quickSignIn } from './helpers/users'

/**
 * A service credential is throttled by itself (API_RATE_LIMIT calls a minute): past it, 429 with
 * Retry-After, never a 401; another key of the same application has its own count; a dead
 * credential is still a 401, not a 429.
 */
const t = useTestApp({ RATE_LIMIT: 'on', API_RATE_LIMIT: '5' })

describe('throttling service credentials', () => {
  it('answers 429 with Retry-After past API_RATE_LIMIT calls a minute of one key, and counts each key by itself', async () => {
    const admin = await quickSignIn(t, { role: 'ADMIN' })
    const created = expectSuccess(await as(t, admin).post('/api/admin/applications', { name: 'Busy Script', type: 'service', scopes: ['users:read'] }), 201)
    const id = created.data.application.id as string
    const key = async () => expectSuccess(await as(t, admin).post(`/api/admin/applications/${id}/keys`, { name: 'k' }), 201).data.secret as string
    const first = await key()
    const second = await key()
    const callWith = (secret: string) => t.request('GET', '/api/admin/users', { headers: { authorization: `Bearer ${secret}` } })

    for (let i = 0; i < 5; i += 1) expectSuccess(await callWith(first))
    const refused = expectFailure(await callWith(first), 429, undefined, 'RATE_LIMITED')
    expect(refused).toBeDefined()
    const answer = await callWith(first)
    expect(answer.statusCode).toBe(429)
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0)
    expectSuccess(await callWith(second))

    // A minute later the key is let through again: counted by the app's clock on the embedded
    // store; Redis expires its counters by its own clock, which the test does not move.
    if (!process.env.TEST_REDIS_URL) {
      t.clock.advance(61)
      expectSuccess(await callWith(first))
    }
    const dead = first.slice(0, 7) + 'A'.repeat(first.length - 7)
    expectFailure(await callWith(dead), 401, undefined, 'CREDENTIAL_INVALID')
  })
})
