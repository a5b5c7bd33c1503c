import { beforeAll, describe, expect, it } from 'vitest'
import { type SignedIn, useTestApp } from '../../support/test-app'
import { as } from '../helpers/requests'
import { quickSignIn } from '../helpers/users'
import { expectFailure, me, refresh } from './helpers'

/**
 * A session ended by a suspension or a deactivation tells its bearer why (still a 401: the
 * session is over), so the web app shows the account-status page instead of the sign-in form;
 * any other ended session says only that it ended.
 */
describe('why a session ended', () => {
  const t = useTestApp()
  let admin: SignedIn
  beforeAll(async () => {
    admin = await quickSignIn(t, { role: 'ADMIN' })
  })

  it.each([
    ['SUSPENDED', 'ACCOUNT_SUSPENDED', 'Account is suspended'],
    ['INACTIVE', 'ACCOUNT_INACTIVE', 'Account is inactive'],
  ] as const)('an account made %s meanwhile: its old access token is refused with that reason', async (status, code, message) => {
    const target = await quickSignIn(t, { name: 'Soon Blocked' })
    expect((await as(t, admin).put(`/api/admin/users/${target.id}`, { status })).statusCode).toBe(200)
    expectFailure(await me(t, target.accessToken), 401, code, message)
    // The refresh token is dead like any other: the contract's plain 401.
    expectFailure(await refresh(t, target.refreshToken), 401, 'REFRESH_INVALID')
  })

  it('signed out everywhere, or a role change: the session has ended, nothing more', async () => {
    const user = await quickSignIn(t)
    expect((await t.request('POST', '/api/auth/logout-all', { token: user.accessToken, csrf: user.csrfToken })).statusCode).toBe(200)
    expectFailure(await me(t, user.accessToken), 401, 'SESSION_ENDED', 'Your session has ended. Please sign in again.')

    const promoted = await quickSignIn(t)
    expect((await as(t, admin).put(`/api/admin/users/${promoted.id}`, { role: 'MODERATOR' })).statusCode).toBe(200)
    expectFailure(await me(t, promoted.accessToken), 401, 'SESSION_ENDED')
  })
})
