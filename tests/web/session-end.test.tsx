import { screen, waitFor } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import { decideAccess } from '~web/app/guard'
import { session } from '~web/lib/session'
import { fail, installFakeApi } from './support/fake-api'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

/** When a session ends without the user signing out here, the app says why instead of bouncing silently. */
describe('a reason when a session ends', () => {
  const refreshRefused = fail(401, 'Invalid or expired refresh token', { code: 'REFRESH_INVALID' })

  test('signed out elsewhere (the refresh is refused): the sign-in page says the session has ended', async () => {
    const api = installFakeApi()
      .on('GET /users/profile', fail(401, 'Your session has ended. Please sign in again.', { code: 'SESSION_ENDED' }))
      .on('POST /auth/refresh-token', refreshRefused)
    const { location } = renderApp(null, { url: '/profile', user: makeUser({ email: 'ann@example.com' }) })
    await screen.findByRole('heading', { name: 'Sign in' }, { timeout: 10_000 })
    expect(location().pathname).toBe('/login')
    expect(screen.getByRole('status').textContent).toBe('Your session has ended. Please sign in again.')
    expect(api.callsTo('POST /auth/refresh-token')).toHaveLength(1)
    expect(window.localStorage.getItem('accessToken')).toBeNull()
  })

  test('in French when the interface is French', async () => {
    const { setLanguage } = await import('~web/lib/i18n')
    await setLanguage('fr')
    installFakeApi()
      .on('GET /users/profile', fail(401, 'Invalid or expired access token', { code: 'TOKEN_INVALID' }))
      .on('POST /auth/refresh-token', refreshRefused)
    renderApp(null, { url: '/profile', user: makeUser() })
    await screen.findByRole('heading', { name: 'Connexion' }, { timeout: 10_000 })
    expect(screen.getByText('Votre session a pris fin. Veuillez vous reconnecter.')).toBeTruthy()
  })

  test('suspended meanwhile: the account-status page, without trying to refresh', async () => {
    const api = installFakeApi().on('GET /users/profile', fail(401, 'Account is suspended', { code: 'ACCOUNT_SUSPENDED' }))
    const { location } = renderApp(null, { url: '/profile', user: makeUser({ email: 'sus@example.com' }) })
    await screen.findByRole('heading', { name: 'Account Suspended' }, { timeout: 10_000 })
    expect(location().pathname + location().search).toBe('/account-status?status=suspended&email=sus%40example.com')
    expect(api.callsTo('POST /auth/refresh-token')).toHaveLength(0)
    expect(window.localStorage.getItem('accessToken')).toBeNull()
  })

  test('signing out here says nothing of the kind, and signing in again forgets the reason', async () => {
    installFakeApi()
      .on('GET /users/profile', fail(401, 'Session ended', { code: 'SESSION_ENDED' }))
      .on('POST /auth/refresh-token', refreshRefused)
    renderApp(null, { url: '/profile', user: makeUser() })
    await screen.findByRole('heading', { name: 'Sign in' }, { timeout: 10_000 })
    expect(session.get().ended).toEqual({ kind: 'expired' })

    session.signIn({ accessToken: 'a', refreshToken: 'r', csrfToken: 'c', user: makeUser() })
    expect(session.get().ended).toBeUndefined()
    await session.signOut()
    expect(decideAccess({ session: session.get(), access: 'signed-in', from: '/profile' })).toEqual({ kind: 'redirect', to: '/login', state: { from: '/profile' } })
  })

  test('another tab losing the session ends it in this one too, with the reason', async () => {
    installFakeApi()
    renderApp(null, { url: '/settings', user: makeUser() })
    await screen.findByRole('heading', { name: 'Settings', level: 1 })
    window.localStorage.removeItem('accessToken')
    window.dispatchEvent(new StorageEvent('storage', { key: 'accessToken' }))
    await waitFor(() => expect(screen.getByText('Your session has ended. Please sign in again.')).toBeTruthy())
  })
})
