import { screen, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, test } from 'vitest'
import { LoginPage } from '~web/features/auth/components/login-page'
import { RegisterPage } from '~web/features/auth/components/register-page'
import { fail, installFakeApi, ok } from './support/fake-api'
import { settle, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

/**
 * Signing in with an identity provider, in the web app (contract section 10, decision 0516): the
 * buttons of the sign-in and registration pages, routing by the address's domain, and the
 * `/login/complete` page the server hands the sign-in to.
 */
const companySso = { id: 'idp_company', name: 'Company SSO', kind: 'oidc' }
const tokens = { accessToken: 'a', refreshToken: 'r', csrfToken: 'c', user: makeUser() }

describe('the sign-in and registration pages', () => {
  test('show Continue with <name> for each listed provider, a link to its start that returns where the person wanted', async () => {
    installFakeApi().on('GET /auth/identity-providers', ok({ identityProviders: [companySso] }))
    renderApp(<LoginPage />, { url: '/login', state: { from: '/settings?tab=x' } })
    const button = await screen.findByRole('link', { name: 'Continue with Company SSO' })
    expect(button.getAttribute('href')).toBe('/api/auth/federation/idp_company/start?returnTo=%2Fsettings%3Ftab%3Dx')
  })

  test('show no provider button when the server lists none', async () => {
    const api = installFakeApi().on('GET /auth/identity-providers', ok({ identityProviders: [] }))
    renderApp(<LoginPage />, { url: '/login' })
    await waitFor(() => expect(api.callsTo('GET /auth/identity-providers')).toHaveLength(1))
    await settle()
    expect(screen.queryByRole('link', { name: /Continue with/ })).toBeNull()
  })

  test('the registration page offers the providers too', async () => {
    installFakeApi().on('GET /auth/identity-providers', ok({ identityProviders: [companySso] }))
    renderApp(<RegisterPage />, { url: '/register' })
    const button = await screen.findByRole('link', { name: 'Continue with Company SSO' })
    expect(button.getAttribute('href')).toBe('/api/auth/federation/idp_company/start?returnTo=%2Fdashboard')
  })

  test('an address whose domain a provider claims offers that provider in place of the password, which stays a choice', async () => {
    const api = installFakeApi()
      .on('GET /auth/identity-providers', ok({ identityProviders: [] }))
      .on('GET /auth/identity-providers/discover', (request) =>
        ok({ identityProvider: request.query.get('email')?.endsWith('@company.test') ? { id: 'idp_company', name: 'Company SSO' } : null }),
      )
    const { user } = renderApp(<LoginPage />, { url: '/login' })
    await user.type(screen.getByLabelText('Email'), 'ann@elsewhere.test')
    await user.tab()
    await waitFor(() => expect(api.callsTo('GET /auth/identity-providers/discover')).toHaveLength(1))
    await settle()
    expect(screen.getByLabelText('Password')).toBeTruthy()

    await user.clear(screen.getByLabelText('Email'))
    await user.type(screen.getByLabelText('Email'), 'ann@company.test')
    await user.tab()
    const button = await screen.findByRole('link', { name: 'Continue with Company SSO' })
    expect(button.getAttribute('href')).toBe('/api/auth/federation/idp_company/start?returnTo=%2Fdashboard&login_hint=ann%40company.test')
    expect(screen.queryByLabelText('Password')).toBeNull()
    await user.click(screen.getByRole('button', { name: 'Use my password instead' }))
    expect(await screen.findByLabelText('Password')).toBeTruthy()
    expect(screen.queryByRole('link', { name: 'Continue with Company SSO' })).toBeNull()
  })

  test('the server’s ?error=federation_failed is explained', async () => {
    installFakeApi()
    renderApp(<LoginPage />, { url: '/login?error=federation_failed' })
    expect((await screen.findByRole('alert')).textContent).toBe('The sign-in with your provider could not be completed. Please try again.')
  })
})

describe('/login/complete', () => {
  const openComplete = (hash: string) => {
    window.history.replaceState(null, '', `/login/complete${hash}`)
    return renderApp(null, { url: '/login/complete' })
  }
  beforeEach(() => {
    window.history.replaceState(null, '', '/')
  })

  test('redeems the handoff once, removes it from the address bar, signs in and goes to returnTo', async () => {
    const api = installFakeApi().on('POST /auth/federation/complete', ok({ ...tokens, returnTo: '/settings' }))
    const { location } = openComplete('#handoff=handoff-code-1234567890')
    await waitFor(() => expect(location().pathname).toBe('/settings'))
    expect(api.callsTo('POST /auth/federation/complete').map((call) => call.body)).toEqual([{ handoff: 'handoff-code-1234567890' }])
    expect(window.location.hash).toBe('')
    expect(window.localStorage.getItem('accessToken')).toBe('a')
    await waitFor(() => expect(toastTexts()).toEqual(['Login successful!']))
  })

  test('never goes to another origin, whatever returnTo says', async () => {
    installFakeApi().on('POST /auth/federation/complete', ok({ ...tokens, returnTo: '//evil.test/x' }))
    const { location } = openComplete('#handoff=handoff-code-1234567890')
    await waitFor(() => expect(location().pathname).toBe('/dashboard'))
  })

  test('asks for the second step when the account has two-factor on, then goes on', async () => {
    const api = installFakeApi()
      .on('POST /auth/federation/complete', ok({ mfaRequired: true, mfaToken: 'mfa-token', methods: ['totp', 'recovery'], returnTo: '/settings' }))
      .on('POST /auth/login/mfa', ok(tokens))
    const { user, location } = openComplete('#handoff=handoff-code-1234567890')
    await user.type(await screen.findByLabelText('Code from the app'), '123456')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(location().pathname).toBe('/settings'))
    expect(api.callsTo('POST /auth/login/mfa')[0]!.body).toEqual({ mfaToken: 'mfa-token', code: '123456' })
  })

  test('an account with the provider’s address: its owner signs in to it on the page, and only then is the identity linked', async () => {
    const link = {
      linkRequired: true,
      email: 'ann@example.com',
      provider: { id: 'idp_company', name: 'Company SSO' },
      linkToken: 'link-token-1234567890',
      returnTo: '/profile',
    }
    const identity = {
      id: 'i1',
      providerId: 'idp_company',
      providerName: 'Company SSO',
      kind: 'oidc',
      email: 'ann@example.com',
      linkedAt: '2026-01-01',
      lastUsedAt: null,
    }
    const api = installFakeApi().on('POST /auth/federation/complete', ok(link)).on('POST /auth/login', ok(tokens)).on('POST /auth/federation/link', ok({ identity }))
    const { user, location } = openComplete('#handoff=handoff-code-1234567890')
    expect((await screen.findByText('Link Company SSO to your account')).textContent).toBeTruthy()
    expect(screen.getByText(/An account with ann@example.com already exists/)).toBeTruthy()
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('ann@example.com')
    expect(api.callsTo('POST /auth/federation/link')).toHaveLength(0)
    await user.type(screen.getByLabelText('Password'), 'Correct-Horse-9!')
    await user.click(screen.getByRole('button', { name: 'Sign in' }))
    await waitFor(() => expect(location().pathname).toBe('/profile'))
    expect(api.callsTo('POST /auth/federation/link').map((call) => call.body)).toEqual([{ linkToken: 'link-token-1234567890' }])
    await waitFor(() => expect(toastTexts()).toContain('Company SSO is now linked to your account'))
  })

  test.each([
    [
      'FEDERATION_NO_ACCOUNT',
      403,
      'No account uses this Company SSO identity. Ask an administrator for an invitation.',
      'No account uses this Company SSO identity. Ask an administrator for an invitation.',
    ],
    [
      'FEDERATION_FAILED',
      401,
      'The sign-in with your identity provider could not be completed. Please try again.',
      'The sign-in with your provider could not be completed. Please try again.',
    ],
    ['EMAIL_NOT_VERIFIED', 403, 'Email not verified', 'Please verify your email address before logging in. Check your inbox for a verification email.'],
  ])('a failure (%s) lands on the sign-in page with its explanation', async (code, status, message, shown) => {
    installFakeApi().on('POST /auth/federation/complete', fail(status, message, { code }))
    const { location } = openComplete('#handoff=handoff-code-1234567890')
    await waitFor(() => expect(location().pathname).toBe('/login'))
    expect((await screen.findByRole('alert')).textContent).toBe(shown)
  })

  test('without a handoff code: the sign-in page, and nothing asked of the server', async () => {
    const api = installFakeApi()
    const { location } = openComplete('')
    await waitFor(() => expect(location().pathname).toBe('/login'))
    expect(api.callsTo('POST /auth/federation/complete')).toHaveLength(0)
    expect((await screen.findByRole('alert')).textContent).toBe('The sign-in with your provider could not be completed. Please try again.')
  })
})
