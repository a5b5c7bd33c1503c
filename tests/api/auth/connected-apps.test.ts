import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../support/test-app'
import { insertApplication, insertGrant, rowsOfGrant } from '../helpers/connected-apps'
import { as, countWhere, expectFailure, expectSuccess } from '../helpers/requests'
import { quickSignIn } from '../helpers/users'

/**
 * Connected apps (contract section 9): a person sees the applications they allowed, with what each
 * may see and when it was allowed and last used, and can take an application's access back: its
 * grant, codes and tokens are gone, and nobody else's.
 */
describe('connected apps', () => {
  const t = useTestApp()

  it('lists only the caller’s allowed applications, newest first, with their scopes and times', async () => {
    const user = await quickSignIn(t, { name: 'Wiki Reader' })
    const other = await quickSignIn(t, { name: 'Someone Else' })
    const wiki = await insertApplication(t, 'Team Wiki')
    const dashboard = await insertApplication(t, 'Sales Dashboard')
    await insertGrant(t, {
      userId: user.id,
      applicationId: wiki,
      scope: 'openid profile email offline_access',
      iat: 1_780_000_000,
      lastUsedAt: new Date('2026-06-01T10:00:00.000Z'),
    })
    await insertGrant(t, { userId: user.id, applicationId: dashboard, scope: 'openid roles', iat: 1_780_100_000 })
    await insertGrant(t, { userId: other.id, applicationId: wiki, scope: 'openid' })

    const body = expectSuccess(await as(t, user).get('/api/auth/applications'))
    expect(body.data).toEqual({
      applications: [
        { id: dashboard, name: 'Sales Dashboard', scopes: ['openid', 'roles'], grantedAt: new Date(1_780_100_000_000).toISOString(), lastUsedAt: null },
        {
          id: wiki,
          name: 'Team Wiki',
          scopes: ['openid', 'profile', 'email', 'offline_access'],
          grantedAt: new Date(1_780_000_000_000).toISOString(),
          lastUsedAt: '2026-06-01T10:00:00.000Z',
        },
      ],
    })
  })

  it('shows an empty list to someone who allowed nothing', async () => {
    const user = await quickSignIn(t)
    expect(expectSuccess(await as(t, user).get('/api/auth/applications')).data).toEqual({ applications: [] })
  })

  it('removes an application’s access: its grant and tokens die, an activity entry says so, others’ grants stay', async () => {
    const user = await quickSignIn(t, { name: 'Wiki Leaver' })
    const other = await quickSignIn(t, { name: 'Wiki Stayer' })
    const wiki = await insertApplication(t, 'Team Wiki')
    const dashboard = await insertApplication(t, 'Sales Dashboard')
    const mine = await insertGrant(t, { userId: user.id, applicationId: wiki })
    const myOther = await insertGrant(t, { userId: user.id, applicationId: dashboard })
    const theirs = await insertGrant(t, { userId: other.id, applicationId: wiki })

    const removed = await as(t, user).delete(`/api/auth/applications/${wiki}`)
    expect(removed.json()).toEqual({ success: true, message: 'Access removed' })
    expect(await rowsOfGrant(t, mine.grantId)).toBe(0)
    expect(await rowsOfGrant(t, myOther.grantId)).toBe(3)
    expect(await rowsOfGrant(t, theirs.grantId)).toBe(3)
    expect(await countWhere(t, 'activities', { user_id: user.id, kind: 'applications', activity: 'Removed access of Team Wiki' })).toBe(1)
    expect(expectSuccess(await as(t, user).get('/api/auth/applications')).data.applications.map((app: { id: string }) => app.id)).toEqual([dashboard])
    expect(expectSuccess(await as(t, other).get('/api/auth/applications')).data.applications.map((app: { id: string }) => app.id)).toEqual([wiki])
  })

  it('answers 404 for an application not allowed, unknown, or already removed, changing nothing', async () => {
    const user = await quickSignIn(t)
    const other = await quickSignIn(t)
    const wiki = await insertApplication(t, 'Team Wiki')
    const theirs = await insertGrant(t, { userId: other.id, applicationId: wiki })

    expectFailure(await as(t, user).delete(`/api/auth/applications/${wiki}`), 404, 'Application not found', 'APPLICATION_NOT_FOUND')
    expectFailure(await as(t, user).delete('/api/auth/applications/no-such-app'), 404, 'Application not found', 'APPLICATION_NOT_FOUND')
    expect(await rowsOfGrant(t, theirs.grantId)).toBe(3)

    await insertGrant(t, { userId: user.id, applicationId: wiki })
    expectSuccess(await as(t, user).delete(`/api/auth/applications/${wiki}`))
    expectFailure(await as(t, user).delete(`/api/auth/applications/${wiki}`), 404, 'Application not found', 'APPLICATION_NOT_FOUND')
    expect(await countWhere(t, 'activities', { user_id: user.id, kind: 'applications' })).toBe(1)
  })

  it('is for signed-in people only', async () => {
    expectFailure(await t.request('GET', '/api/auth/applications'), 401, undefined, 'AUTH_REQUIRED')
    expectFailure(await t.request('DELETE', '/api/auth/applications/anything'), 401, undefined, 'AUTH_REQUIRED')
  })
})
