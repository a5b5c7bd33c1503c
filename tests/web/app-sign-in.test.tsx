import { screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { AccountStatusPage } from '~web/features/access/components/account-status-page'
import { LoginPage } from '~web/features/auth/components/login-page'
import { VerifyEmailPage } from '~web/features/auth/components/verify-email-page'
import { browserNavigation } from '~web/lib/app-interaction'
import { fail, installFakeApi, ok, besidesProviderLookups } from './support/fake-api'
import { settle } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

/**
 * "Sign in with Accounts": an app sends the browser to `/login?interaction=<uid>`. The sign-in
 * page names the app and offers everything it always offers; after any sign-in (or at once, for
 * someone already signed in) the request goes on and the browser follows the server's address.
 */
const details = (overrides: Record<string, unknown> = {}) =>
  ok({
    uid: 'u1',
    app: { id: 'wiki', name: 'Team Wiki', firstParty: false },
    prompt: 'login',
    freshSignIn: false,
    scopes: ['openid', 'email'],
    refusal: null,
    ...overrides,
  })
const tokens = (user = makeUser()) => ok({ accessToken: 'a', refreshToken: 'r', csrfToken: 'c', user }, 'Login successful!')
const CONSENT = 'http://localhost/consent?interaction=u1'

let assign: ReturnType<typeof vi.fn<(url: string) => void>>
beforeEach(() => {
  assign = vi.fn<(url: string) => void>()
  vi.spyOn(browserNavigation, 'assign').mockImplementation(assign)
})
afterEach(() => sessionStorage.clear())

const renderAppSignIn = (user?: ReturnType<typeof makeUser>) => renderApp(<LoginPage />, { url: '/login?interaction=u1', path: '/login', user: user ?? null })

async function signInWith(user: ReturnType<typeof renderAppSignIn>['user'], email: string, password: string) {
  await user.type(await screen.findByLabelText('Email'), email)
  await user.type(screen.getByLabelText('Password'), password)
  await user.click(screen.getByRole('button', { name: 'Sign in' }))
}

describe('signing in to an app', () => {
  test('names the app, signs in with a password, then continues the app’s request and follows the server', async () => {
    const api = installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details())
      .on('POST /auth/login', tokens())
      .on('POST /oidc/interactions/:uid/login', ok({ redirectTo: CONSENT }))
    const { user } = renderAppSignIn()
    expect(await screen.findByText('Sign in to continue to Team Wiki')).toBeTruthy()
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in' })).toBeTruthy()
    await signInWith(user, 'ann@example.com', 'Correct-Horse-9!')
    await waitFor(() => expect(assign).toHaveBeenCalledWith(CONSENT))
    const [call] = api.callsTo('POST /oidc/interactions/:uid/login')
    expect(call!.params.uid).toBe('u1')
    expect(call!.headers.get('Authorization')).toBe('Bearer a')
    expect(besidesProviderLookups(api).map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /oidc/interactions/u1/details',
      'POST /auth/login',
      'POST /oidc/interactions/u1/login',
    ])
    expect(sessionStorage.length).toBe(0)
  })

  test('single sign-on: someone already signed in is not asked again', async () => {
    const api = installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details())
      .on('POST /oidc/interactions/:uid/login', ok({ redirectTo: 'https://wiki.example.com/cb?code=x' }))
    renderAppSignIn(makeUser())
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://wiki.example.com/cb?code=x'))
    expect(screen.queryByLabelText('Email')).toBeNull()
    expect(api.callsTo('POST /oidc/interactions/:uid/login')).toHaveLength(1)
    expect(api.callsTo('POST /auth/login')).toHaveLength(0)
  })

  test('an app that asks for a new sign-in gets the form even from someone signed in', async () => {
    const api = installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details({ freshSignIn: true }))
      .on('POST /auth/login', tokens())
      .on('POST /oidc/interactions/:uid/login', ok({ redirectTo: CONSENT }))
    const { user } = renderAppSignIn(makeUser())
    await signInWith(user, 'ann@example.com', 'Correct-Horse-9!')
    await waitFor(() => expect(assign).toHaveBeenCalledWith(CONSENT))
    expect(api.callsTo('POST /oidc/interactions/:uid/login')).toHaveLength(1)
  })

  test('a server that wants a new sign-in (409) gets the form, then the request goes on', async () => {
    let answers = 0
    const api = installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details())
      .on('POST /auth/login', tokens())
      .on('POST /oidc/interactions/:uid/login', () =>
        answers++ === 0 ? fail(409, 'A new sign-in is required', { code: 'FRESH_SIGN_IN_REQUIRED' }) : ok({ redirectTo: CONSENT }),
      )
    const { user } = renderAppSignIn(makeUser())
    await signInWith(user, 'ann@example.com', 'Correct-Horse-9!')
    await waitFor(() => expect(assign).toHaveBeenCalledWith(CONSENT))
    expect(api.callsTo('POST /oidc/interactions/:uid/login')).toHaveLength(2)
  })

  test('two-factor: the request goes on after the second step', async () => {
    const api = installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details())
      .on('POST /auth/login', ok({ mfaRequired: true, mfaToken: 'mfa-token', methods: ['totp'] }))
      .on('POST /auth/login/mfa', tokens())
      .on('POST /oidc/interactions/:uid/login', ok({ redirectTo: CONSENT }))
    const { user } = renderAppSignIn()
    await signInWith(user, 'ann@example.com', 'Correct-Horse-9!')
    await user.type(await screen.findByLabelText('Code from the app'), '123456')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(assign).toHaveBeenCalledWith(CONSENT))
    expect(api.callsTo('POST /oidc/interactions/:uid/login')).toHaveLength(1)
  })

  test('a role the app does not admit is told, with the way back to the app', async () => {
    const api = installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details({ refusal: 'role' }))
      .on('POST /oidc/interactions/:uid/abort', ok({ redirectTo: 'https://wiki.example.com/cb?error=access_denied' }))
    const { user } = renderAppSignIn(makeUser())
    expect(await screen.findByRole('heading', { level: 1, name: 'You do not have access to Team Wiki' })).toBeTruthy()
    expect(api.callsTo('POST /oidc/interactions/:uid/login')).toHaveLength(0)
    await user.click(screen.getByRole('button', { name: 'Return to Team Wiki' }))
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://wiki.example.com/cb?error=access_denied'))
  })

  test('a refusal after signing in (403 APP_ACCESS_DENIED) is told the same way', async () => {
    installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details())
      .on('POST /auth/login', tokens())
      .on('POST /oidc/interactions/:uid/login', fail(403, 'You do not have access to Team Wiki', { code: 'APP_ACCESS_DENIED' }))
    const { user } = renderAppSignIn()
    await signInWith(user, 'ann@example.com', 'Correct-Horse-9!')
    expect(await screen.findByRole('heading', { level: 1, name: 'You do not have access to Team Wiki' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Return to Team Wiki' })).toBeTruthy()
    expect(assign).not.toHaveBeenCalled()
  })

  test('an expired or unknown request says so, and sends nobody anywhere', async () => {
    const api = installFakeApi().on('GET /oidc/interactions/:uid/details', fail(404, 'Sign-in request not found', { code: 'INTERACTION_NOT_FOUND' }))
    renderAppSignIn(makeUser())
    expect(await screen.findByRole('heading', { level: 1, name: 'This sign-in request has expired' })).toBeTruthy()
    expect(screen.getByText('This sign-in request has expired. Go back to the app and try again.')).toBeTruthy()
    await settle()
    expect(assign).not.toHaveBeenCalled()
    expect(besidesProviderLookups(api)).toHaveLength(1)
  })

  test('the form offers the way back to the app (which hears access_denied)', async () => {
    const api = installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details())
      .on('POST /oidc/interactions/:uid/abort', ok({ redirectTo: 'https://wiki.example.com/cb?error=access_denied' }))
    const { user } = renderAppSignIn()
    await user.click(await screen.findByRole('button', { name: 'Return to Team Wiki' }))
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://wiki.example.com/cb?error=access_denied'))
    expect(api.callsTo('POST /oidc/interactions/:uid/abort')).toHaveLength(1)
  })

  test('a suspended account goes to the account-status page, which offers the way back to the app', async () => {
    installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details())
      .on('POST /auth/login', fail(403, 'Account is suspended', { code: 'ACCOUNT_SUSPENDED' }))
    const { user, location } = renderAppSignIn()
    await signInWith(user, 'kept@example.com', 'Some-Pass-1!')
    await waitFor(() => expect(location().pathname).toBe('/account-status'))

    const api = installFakeApi().on('POST /oidc/interactions/:uid/abort', ok({ redirectTo: 'https://wiki.example.com/cb?error=access_denied' }))
    const status = renderApp(<AccountStatusPage />, { url: '/account-status?status=suspended' })
    await status.user.click(screen.getAllByRole('button', { name: 'Return to Team Wiki' }).at(-1)!)
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://wiki.example.com/cb?error=access_denied'))
    expect(api.callsTo('POST /oidc/interactions/:uid/abort')[0]!.params.uid).toBe('u1')
  })

  test('an unverified address: the page to get a new link offers the way back to the app too', async () => {
    installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details())
      .on('POST /auth/login', fail(403, 'Email not verified', { code: 'EMAIL_NOT_VERIFIED' }))
    const { user } = renderAppSignIn()
    await signInWith(user, 'new@example.com', 'Some-Pass-1!')
    expect((await screen.findByRole('alert')).textContent).toContain('Please verify your email address before logging in.')
    expect(screen.getByRole('link', { name: 'Resend verification email' }).getAttribute('href')).toBe('/verify-email?email=new%40example.com')

    const api = installFakeApi().on('POST /oidc/interactions/:uid/abort', ok({ redirectTo: 'https://wiki.example.com/cb?error=access_denied' }))
    const page = renderApp(<VerifyEmailPage />, { url: '/verify-email?email=new%40example.com', path: '/verify-email' })
    await page.user.click(screen.getAllByRole('button', { name: 'Return to Team Wiki' }).at(-1)!)
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://wiki.example.com/cb?error=access_denied'))
    expect(api.callsTo('POST /oidc/interactions/:uid/abort')).toHaveLength(1)
  })

  test('signed in but refused by the request (account suspended meanwhile): the account-status page', async () => {
    installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details())
      .on('POST /oidc/interactions/:uid/login', fail(403, 'Account is suspended', { code: 'ACCOUNT_SUSPENDED' }))
    const { location } = renderAppSignIn(makeUser({ email: 'ann@example.com' }))
    await waitFor(() => expect(location().pathname + location().search).toBe('/account-status?status=suspended&email=ann%40example.com'))
    expect(assign).not.toHaveBeenCalled()
  })

  test('a plain sign-in knows nothing of apps', async () => {
    const api = installFakeApi()
    renderApp(<LoginPage />, { url: '/login' })
    expect(await screen.findByText('Enter your email and password to access your account')).toBeTruthy()
    expect(screen.queryByRole('button', { name: /Return to/ })).toBeNull()
    expect(besidesProviderLookups(api)).toHaveLength(0)
  })
})
