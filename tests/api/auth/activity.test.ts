import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../support/test-app'
import { activitiesOf, forgotPassword, newVisitor, register, resetLink, resetPassword, tokenOf, userIdOf, verificationLink } from './helpers'

/**
 * One user's whole journey, each step from a different client address: every step leaves its
 * activity entry, with the address it came from, in the order it happened.
 */
describe("a user's journey in the activity log", () => {
  const t = useTestApp()

  it('has an entry with the client address for registration, verification, failed and good sign-ins, sign-out and reset', async () => {
    const visitor = newVisitor()
    await register(t, visitor, { remoteAddress: '203.0.113.1' })
    const verifyToken = tokenOf(await verificationLink(t, visitor.email))
    await t.request('GET', `/api/auth/verify-email/${verifyToken}`, { remoteAddress: '203.0.113.2' })
    await t.login(visitor.email, 'Not-The-Password-1!', '203.0.113.3')
    const session = (await t.login(visitor.email, visitor.password, '203.0.113.4')).json().data
    await t.request('POST', '/api/auth/logout', { token: session.accessToken, csrf: session.csrfToken, remoteAddress: '203.0.113.5' })
    await forgotPassword(t, visitor.email, '203.0.113.6')
    await resetPassword(t, tokenOf(await resetLink(t, visitor.email)), 'Journey-Complete-7!', '203.0.113.7')

    const entries = await activitiesOf(t, await userIdOf(t, visitor.email))
    expect(entries.map(({ kind, activity, ip_address }) => ({ kind, activity, ip_address }))).toEqual([
      { kind: 'registered', activity: 'Registered', ip_address: '203.0.113.1' },
      { kind: 'verified', activity: 'Verified email', ip_address: '203.0.113.2' },
      { kind: 'other', activity: 'Failed login', ip_address: '203.0.113.3' },
      { kind: 'logged in', activity: 'Logged in', ip_address: '203.0.113.4' },
      { kind: 'logged out', activity: 'Logged out', ip_address: '203.0.113.5' },
      { kind: 'reset', activity: 'Reset link requested', ip_address: '203.0.113.6' },
      { kind: 'reset', activity: 'Reset password', ip_address: '203.0.113.7' },
    ])
    for (const entry of entries) expect(JSON.stringify(entry)).not.toContain('Journey-Complete-7!')
  })

  it('records nothing for a refused request', async () => {
    const user = await t.createUser()
    const before = await activitiesOf(t, user.id)
    const session = (await t.login(user.email, user.password)).json().data
    await t.request('POST', '/api/auth/logout', { token: session.accessToken })
    await t.request('GET', `/api/auth/verify-email/${'A'.repeat(43)}`)
    await t.request('POST', '/api/auth/register', { body: { name: 'x', email: user.email, password: 'short', confirmPassword: 'short' } })
    const after = await activitiesOf(t, user.id)
    expect(after.slice(before.length).map((a) => a.activity)).toEqual(['Logged in'])
  })
})
