import { screen, waitFor, within } from '@testing-library/react'
import { StrictMode } from 'react'
import { describe, expect, test } from 'vitest'
import { ForgotPasswordPage } from '~web/features/auth/components/forgot-password-page'
import { RegisterPage } from '~web/features/auth/components/register-page'
import { ResetPasswordPage } from '~web/features/auth/components/reset-password-page'
import { VerifyEmailPage } from '~web/features/auth/components/verify-email-page'
import { fail, installFakeApi, ok, besidesProviderLookups } from './support/fake-api'
import { fieldError, settle, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'

describe('registration', () => {
  const fill = async (user: ReturnType<typeof renderApp>['user'], values: Partial<Record<string, string>>) => {
    for (const [label, value] of Object.entries(values)) if (value) await user.type(screen.getByLabelText(label, { exact: true }), value)
    await user.click(screen.getByRole('button', { name: 'Create account' }))
  }

  test('the spec messages under the right fields', async () => {
    const api = installFakeApi()
    const { user } = renderApp(<RegisterPage />, { url: '/register' })
    await fill(user, {})
    await waitFor(() => expect(fieldError('Full Name')).toBe('Name must be at least 2 characters'))
    expect(fieldError('Email')).toBe('Invalid email address')
    expect(fieldError('Password')).toBe('Password must be at least 8 characters')
    expect(fieldError(/^Phone/)).toBeNull()

    await fill(user, { 'Full Name': 'x'.repeat(51), Email: 'ann@example.com', Password: 'alllowercase', 'Confirm Password': 'different' })
    await waitFor(() => expect(fieldError('Full Name')).toBe('Name must be less than 50 characters'))
    expect(fieldError('Password')).toBe('Password must contain at least one uppercase letter, one lowercase letter, one number, and one special character')
    expect(fieldError('Confirm Password')).toBe("Passwords don't match")
    expect(besidesProviderLookups(api)).toHaveLength(0)
  })

  test('registers and goes on to the verification page with the address', async () => {
    const api = installFakeApi().on('POST /auth/register', { status: 201, body: { success: true, data: { email: 'ann@example.com' } } })
    const { user, location } = renderApp(<RegisterPage />, { url: '/register' })
    await fill(user, { 'Full Name': 'Ann Smith', Email: 'ann@example.com', Password: 'Blue-Otter-93!', 'Confirm Password': 'Blue-Otter-93!' })
    await waitFor(() => expect(location().pathname + location().search).toBe('/verify-email?email=ann%40example.com'))
    expect(besidesProviderLookups(api)[0]!.body).toEqual({
      name: 'Ann Smith',
      email: 'ann@example.com',
      phone: null,
      password: 'Blue-Otter-93!',
      confirmPassword: 'Blue-Otter-93!',
    })
    await waitFor(() => expect(toastTexts()).toEqual(['Registration successful! Please check your email to verify your account.']))
  })

  test("the server's field errors land under their fields", async () => {
    installFakeApi().on(
      'POST /auth/register',
      fail(400, 'This password is too common. Please choose a less predictable one.', {
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'password', message: 'This password is too common. Please choose a less predictable one.' }],
      }),
    )
    const { user } = renderApp(<RegisterPage />, { url: '/register' })
    await fill(user, { 'Full Name': 'Ann Smith', Email: 'ann@example.com', Password: 'Xylophone-77!', 'Confirm Password': 'Xylophone-77!' })
    await waitFor(() => expect(fieldError('Password')).toBe('This password is too common. Please choose a less predictable one.'))
  })

  test('a failure without a message falls back to the spec text', async () => {
    installFakeApi().on('POST /auth/register', { status: 502 })
    const { user } = renderApp(<RegisterPage />, { url: '/register' })
    await fill(user, { 'Full Name': 'Ann Smith', Email: 'ann@example.com', Password: 'Blue-Otter-93!', 'Confirm Password': 'Blue-Otter-93!' })
    await waitFor(() => expect(toastTexts()).toEqual(['Registration failed. Please try again.']))
  })
})

describe('forgotten password', () => {
  test('checks the address, then shows "Check your email" with Try Again and Back to Login', async () => {
    const api = installFakeApi().on('POST /auth/forgot-password', ok(undefined, 'If an account exists…'))
    const { user } = renderApp(<ForgotPasswordPage />, { url: '/forgot-password' })
    await user.type(screen.getByLabelText('Email'), 'nope')
    await user.click(screen.getByRole('button', { name: 'Send reset link' }))
    await waitFor(() => expect(fieldError('Email')).toBe('Invalid email address'))
    expect(api.calls).toHaveLength(0)

    await user.clear(screen.getByLabelText('Email'))
    await user.type(screen.getByLabelText('Email'), 'ann@example.com')
    await user.click(screen.getByRole('button', { name: 'Send reset link' }))
    expect(await screen.findByRole('heading', { name: 'Check your email' })).toBeTruthy()
    expect(api.calls[0]!.body).toEqual({ email: 'ann@example.com' })
    expect(screen.getByRole('link', { name: 'Back to Login' }).getAttribute('href')).toBe('/login')
    await waitFor(() => expect(toastTexts()).toEqual(['Password reset instructions sent to your email']))

    await user.click(screen.getByRole('button', { name: 'Try Again' }))
    expect(screen.getByRole('button', { name: 'Send reset link' })).toBeTruthy()
  })

  test('a failure says "Failed to send reset email"', async () => {
    installFakeApi().on('POST /auth/forgot-password', { status: 500 })
    const { user } = renderApp(<ForgotPasswordPage />, { url: '/forgot-password' })
    await user.type(screen.getByLabelText('Email'), 'ann@example.com')
    await user.click(screen.getByRole('button', { name: 'Send reset link' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Failed to send reset email']))
  })
})

describe('password reset', () => {
  test('without a token: Invalid Reset Link, and a way to ask for a new one', () => {
    renderApp(<ResetPasswordPage />, { url: '/reset-password' })
    expect(screen.getByRole('heading', { name: 'Invalid Reset Link' })).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Request New Reset' }).getAttribute('href')).toBe('/forgot-password')
  })

  test('checks the new password with the spec messages', async () => {
    const api = installFakeApi()
    const { user } = renderApp(<ResetPasswordPage />, { url: '/reset-password?token=abc' })
    await user.type(screen.getByLabelText('New Password'), 'short')
    await user.click(screen.getByRole('button', { name: 'Reset password' }))
    await waitFor(() => expect(fieldError('New Password')).toBe('Password must be at least 8 characters'))
    await user.clear(screen.getByLabelText('New Password'))
    await user.type(screen.getByLabelText('New Password'), 'Blue-Otter-93!')
    await user.type(screen.getByLabelText('Confirm Password'), 'Blue-Otter-94!')
    await waitFor(() => expect(fieldError('Confirm Password')).toBe("Passwords don't match"))
    expect(fieldError('New Password')).toBeNull()
    expect(api.calls).toHaveLength(0)
  })

  test('resets, shows the success view, and after 2 seconds goes to sign-in with a message', async () => {
    const api = installFakeApi().on('POST /auth/reset-password/:token', ok(undefined, 'Password reset successfully!'))
    const { user, location } = renderApp(<ResetPasswordPage />, { url: '/reset-password?token=tok-123' })
    await user.type(screen.getByLabelText('New Password'), 'Blue-Otter-93!')
    await user.type(screen.getByLabelText('Confirm Password'), 'Blue-Otter-93!')
    await user.click(screen.getByRole('button', { name: 'Reset password' }))
    expect(await screen.findByRole('heading', { name: 'Password reset' })).toBeTruthy()
    expect(api.calls[0]).toMatchObject({ path: '/auth/reset-password/tok-123', body: { password: 'Blue-Otter-93!', confirmPassword: 'Blue-Otter-93!' } })
    await settle(1500)
    expect(location().pathname).toBe('/reset-password')
    await waitFor(() => expect(location().pathname).toBe('/login'), { timeout: 2000 })
    expect(location().state).toEqual({ message: 'Password reset successfully! Please log in with your new password.' })
  })

  test('an expired link says so once, in the page with the way to a new link, not again in a toast', async () => {
    installFakeApi().on('POST /auth/reset-password/:token', fail(400, 'Invalid or expired reset link', { code: 'INVALID_TOKEN' }))
    const { user } = renderApp(<ResetPasswordPage />, { url: '/reset-password?token=old' })
    await user.type(screen.getByLabelText('New Password'), 'Blue-Otter-93!')
    await user.type(screen.getByLabelText('Confirm Password'), 'Blue-Otter-93!')
    await user.click(screen.getByRole('button', { name: 'Reset password' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('Invalid or expired reset link')
    expect(within(alert).getByRole('link', { name: 'Request New Reset' }).getAttribute('href')).toBe('/forgot-password')
    // Submitted again: still one message.
    await user.click(screen.getByRole('button', { name: 'Reset password' }))
    await screen.findByRole('alert')
    await settle(300)
    expect(toastTexts()).toEqual([])
    expect(screen.getAllByText('Invalid or expired reset link')).toHaveLength(1)
  })
})

describe('e-mail verification', () => {
  test('with a token: verifies once (even when the effect runs twice), then signs-in with a message after 2 s', async () => {
    const api = installFakeApi().on('GET /auth/verify-email/:token', ok(undefined, 'Email verified successfully!'))
    const { location } = renderApp(
      <StrictMode>
        <VerifyEmailPage />
      </StrictMode>,
      { url: '/verify-email?token=once-only&email=ann%40example.com' },
    )
    expect(screen.getByRole('heading', { name: 'Verifying Email' })).toBeTruthy()
    expect(await screen.findByRole('heading', { name: 'Email Verified!' })).toBeTruthy()
    expect(screen.getByText('Redirecting to login page...')).toBeTruthy()
    expect(api.callsTo('GET /auth/verify-email/:token')).toHaveLength(1)
    await waitFor(() => expect(toastTexts()).toEqual(['Email verified successfully!']))
    await waitFor(() => expect(location().pathname).toBe('/login'), { timeout: 3000 })
    expect(location().state).toEqual({ message: 'Email verified successfully! Please log in.' })
  })

  test('a failed verification shows an error alert and the way to get a new link', async () => {
    installFakeApi().on('GET /auth/verify-email/:token', fail(400, 'Invalid or expired verification link', { code: 'INVALID_TOKEN' }))
    renderApp(<VerifyEmailPage />, { url: '/verify-email?token=stale&email=ann%40example.com' })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('Email verification failed')
    expect(alert.textContent).toContain('Invalid or expired verification link')
    expect(screen.getByRole('button', { name: 'Resend Verification Email' })).toBeTruthy()
  })

  test('without a token: the address read-only, Resend, Back to Login and Sign in here', async () => {
    const api = installFakeApi().on('POST /auth/resend-verification', ok(undefined, 'If this address…'))
    const { user } = renderApp(<VerifyEmailPage />, { url: '/verify-email?email=ann%40example.com' })
    expect(screen.getByRole('heading', { name: 'Verify Your Email' })).toBeTruthy()
    const address = screen.getByLabelText('Email address') as HTMLInputElement
    expect(address.value).toBe('ann@example.com')
    expect(address.readOnly).toBe(true)
    expect(screen.getByRole('link', { name: 'Back to Login' }).getAttribute('href')).toBe('/login')
    expect(screen.getByRole('link', { name: 'Sign in here' }).getAttribute('href')).toBe('/login')

    await user.click(screen.getByRole('button', { name: 'Resend Verification Email' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Verification email sent successfully!']))
    expect(api.calls[0]!.body).toEqual({ email: 'ann@example.com' })
  })

  test('resending without an address says to register again', async () => {
    const api = installFakeApi()
    const { user } = renderApp(<VerifyEmailPage />, { url: '/verify-email' })
    await user.click(screen.getByRole('button', { name: 'Resend Verification Email' }))
    expect((await screen.findByRole('alert')).textContent).toBe('Email address not found. Please register again.')
    expect(api.calls).toHaveLength(0)
  })

  test('a failed resend falls back to its spec text', async () => {
    installFakeApi().on('POST /auth/resend-verification', { status: 500 })
    const { user } = renderApp(<VerifyEmailPage />, { url: '/verify-email?email=ann%40example.com' })
    await user.click(screen.getByRole('button', { name: 'Resend Verification Email' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Failed to resend verification email']))
  })
})
