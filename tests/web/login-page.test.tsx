import { screen, waitFor } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import { LoginPage } from '~web/features/auth/components/login-page'
import { fail, installFakeApi, ok, besidesProviderLookups } from './support/fake-api'
import { fieldError, settle, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const renderLogin = (state?: unknown) => renderApp(<LoginPage />, { url: '/login', state })

async function signInWith(user: ReturnType<typeof renderLogin>['user'], email: string, password: string) {
  if (email) await user.type(screen.getByLabelText('Email'), email)
  if (password) await user.type(screen.getByLabelText('Password'), password)
  await user.click(screen.getByRole('button', { name: 'Sign in' }))
}

describe('the sign-in page', () => {
  test('says what is missing under each field, with the spec messages', async () => {
    const api = installFakeApi()
    const { user } = renderLogin()
    await signInWith(user, '', '')
    await waitFor(() => expect(fieldError('Email')).toBe('Invalid email address'))
    expect(fieldError('Password')).toBe('Password is required')
    await user.type(screen.getByLabelText('Email'), 'not-an-address')
    await waitFor(() => expect(fieldError('Email')).toBe('Invalid email address'))
    expect(besidesProviderLookups(api)).toHaveLength(0)
  })

  test('signs in, says so and goes to the dashboard', async () => {
    const api = installFakeApi().on('POST /auth/login', ok({ accessToken: 'a', refreshToken: 'r', csrfToken: 'c', user: makeUser() }, 'Login successful!'))
    const { user, location } = renderLogin()
    await signInWith(user, 'Ann@Example.com', 'Correct-Horse-9!')
    await waitFor(() => expect(location().pathname).toBe('/dashboard'))
    await waitFor(() => expect(toastTexts()).toEqual(['Login successful!']))
    expect(besidesProviderLookups(api)[0]!.body).toEqual({ email: 'ann@example.com', password: 'Correct-Horse-9!' })
    expect(window.localStorage.getItem('accessToken')).toBe('a')
  })

  test('a wrong password shows the mapped message in the page, not in a toast', async () => {
    installFakeApi().on('POST /auth/login', fail(401, 'Invalid credentials', { code: 'INVALID_CREDENTIALS' }))
    const { user } = renderLogin()
    await signInWith(user, 'ann@example.com', 'Wrong-Pass-1!')
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toBe('Invalid email or password. Please check your credentials and try again.')
    await settle()
    expect(toastTexts()).toEqual([])
  })

  test('an unverified e-mail offers a way to get a new link', async () => {
    installFakeApi().on('POST /auth/login', fail(403, 'Email not verified', { code: 'EMAIL_NOT_VERIFIED' }))
    const { user } = renderLogin()
    await signInWith(user, 'new@example.com', 'Some-Pass-1!')
    expect((await screen.findByRole('alert')).textContent).toContain('Please verify your email address before logging in.')
    expect(screen.getByRole('link', { name: 'Resend verification email' }).getAttribute('href')).toBe('/verify-email?email=new%40example.com')
  })

  test.each([
    ['Account is suspended', 'suspended', 'ACCOUNT_SUSPENDED'],
    ['Account is inactive', 'inactive', 'ACCOUNT_INACTIVE'],
  ])('"%s" goes to the account status page', async (message, status, code) => {
    installFakeApi().on('POST /auth/login', fail(403, message, { code }))
    const { user, location } = renderLogin()
    await signInWith(user, 'kept@example.com', 'Some-Pass-1!')
    await waitFor(() => expect(location().pathname + location().search).toBe(`/account-status?status=${status}&email=kept%40example.com`))
  })

  test('shows the message handed over by the previous page', async () => {
    renderLogin({ message: 'Email verified successfully! Please log in.' })
    expect((await screen.findByRole('status')).textContent).toBe('Email verified successfully! Please log in.')
  })

  test('the password can be shown and hidden', async () => {
    const { user } = renderLogin()
    const password = screen.getByLabelText('Password')
    expect(password.getAttribute('type')).toBe('password')
    await user.click(screen.getByRole('button', { name: 'Show password' }))
    expect(password.getAttribute('type')).toBe('text')
    await user.click(screen.getByRole('button', { name: 'Hide password' }))
    expect(password.getAttribute('type')).toBe('password')
  })

  test('links to the forgotten-password and registration pages', () => {
    renderLogin()
    expect(screen.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).toBe('/forgot-password')
    expect(screen.getByRole('link', { name: 'Sign up' }).getAttribute('href')).toBe('/register')
  })

  describe('with two-factor on', () => {
    const mfaRequired = ok({ mfaRequired: true, mfaToken: 'mfa-token', methods: ['totp', 'recovery'] }, 'Enter the code from your authenticator app')
    const tokens = ok({ accessToken: 'a', refreshToken: 'r', csrfToken: 'c', user: makeUser() }, 'Login successful!')

    test('asks for the app’s code, then lands where the user first wanted to go', async () => {
      const api = installFakeApi().on('POST /auth/login', mfaRequired).on('POST /auth/login/mfa', tokens)
      const { user, location } = renderLogin({ from: '/settings?tab=x' })
      await signInWith(user, 'ann@example.com', 'Correct-Horse-9!')
      const code = await screen.findByLabelText('Code from the app')
      expect(code.getAttribute('autocomplete')).toBe('one-time-code')
      expect(code.getAttribute('inputmode')).toBe('numeric')
      expect(window.localStorage.getItem('accessToken')).toBeNull()
      await user.type(code, '12a')
      await user.click(screen.getByRole('button', { name: 'Verify' }))
      await waitFor(() => expect(fieldError('Code from the app')).toBe('Code must be 6 digits'))
      await user.clear(code)
      await user.type(code, '123456')
      await user.click(screen.getByRole('button', { name: 'Verify' }))
      await waitFor(() => expect(location().pathname + location().search).toBe('/settings?tab=x'))
      expect(besidesProviderLookups(api).map((call) => call.body)).toEqual([
        { email: 'ann@example.com', password: 'Correct-Horse-9!' },
        { mfaToken: 'mfa-token', code: '123456' },
      ])
      expect(window.localStorage.getItem('accessToken')).toBe('a')
      await waitFor(() => expect(toastTexts()).toEqual(['Login successful!']))
    })

    test('takes a recovery code instead, and says so in the page when a code is refused', async () => {
      const api = installFakeApi()
        .on('POST /auth/login', mfaRequired)
        .on('POST /auth/login/mfa', fail(401, 'Invalid code', { code: 'INVALID_CODE' }))
      const { user } = renderLogin()
      await signInWith(user, 'ann@example.com', 'Correct-Horse-9!')
      await user.click(await screen.findByRole('button', { name: 'Use a recovery code instead' }))
      await user.type(screen.getByLabelText('Recovery code'), 'ABCD-EFGH-JKMN-PQRS')
      await user.click(screen.getByRole('button', { name: 'Verify' }))
      expect((await screen.findByRole('alert')).textContent).toBe('Invalid code. Please try again, or sign in again after 5 wrong codes.')
      expect(besidesProviderLookups(api)[1]!.body).toEqual({ mfaToken: 'mfa-token', recoveryCode: 'abcdefghjkmnpqrs' })
      await settle()
      expect(toastTexts()).toEqual([])
      await user.click(screen.getByRole('button', { name: 'Back to sign in' }))
      expect(await screen.findByLabelText('Email')).toBeTruthy()
    })
  })
})
