import * as client from 'openid-client'
import { describe, expect, it } from 'vitest'
import { RULES } from '~server/rate-limit/rules'
import { useTestApp } from '../../support/test-app'
import { protocolError, registerApplication, relyingParty } from '../../support/oidc'

/**
 * The token endpoint is throttled per client address and per application, and a failed client
 * authentication counts as a failed sign-in from that address (contract section 9).
 */
const t = useTestApp({ RATE_LIMIT: 'on' })

describe('throttling the token endpoint', () => {
  // Counters in Redis (TEST_REDIS_URL) are not in the table this reads.
  it.skipIf(Boolean(process.env.TEST_REDIS_URL))('counts every token request against its application', async () => {
    const application = await registerApplication(t.ctx)
    const config = await relyingParty(t, application)
    await protocolError(client.refreshTokenGrant(config, 'not-a-token'))
    await protocolError(client.refreshTokenGrant(config, 'not-a-token'))
    const counters = await t.ctx.db.selectFrom('rate_limits').select(['key', 'count']).where('key', 'like', 'oidc-token-app:%').execute()
    expect(counters.map((row) => row.count)).toContain(2)
  })

  it('counts wrong client secrets as failed sign-ins, and refuses the address past the limit, right secret or not', async () => {
    const application = await registerApplication(t.ctx)
    const wrong = await relyingParty(t, { ...application, secret: 'a-wrong-secret' })
    const right = await relyingParty(t, application)
    for (let i = 0; i < RULES.signInByIp.max; i++) {
      expect(await protocolError(client.refreshTokenGrant(wrong, 'x'))).toBe('invalid_client')
    }
    expect(await protocolError(client.refreshTokenGrant(right, 'x'))).toBe('too_many_requests')
    // The same address is refused at the product's own sign-in too: one count of failed sign-ins.
    const login = await t.request('POST', '/api/auth/login', { body: { email: 'someone@example.com', password: 'Not-The-Password-1!' } })
    expect(login.statusCode).toBe(429)
  })
})
