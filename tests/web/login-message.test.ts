import { describe, expect, test } from 'vitest'
import { loginMessageKey } from '~web/features/auth/login-message'
import type { FailureCode } from '~web/lib/failures'
import { t } from '~web/lib/i18n'

/** The product's sign-in message mapping, row by row. */
const shown = (message: string, code?: FailureCode) => t(loginMessageKey(message, code))

describe('what the sign-in page says for a failed sign-in', () => {
  test.each([
    ['No account found with this email', 'No account found with this email address. Please check your email or sign up for a new account.'],
    ['Email not found', 'No account found with this email address. Please check your email or sign up for a new account.'],
    ['Incorrect password', 'Incorrect password. Please check your password and try again.'],
    ['Your password is wrong', 'Incorrect password. Please check your password and try again.'],
    ['Invalid credentials', 'Invalid email or password. Please check your credentials and try again.'],
    ['Email not verified', 'Please verify your email address before logging in. Check your inbox for a verification email.'],
    ['Network error: the server could not be reached', 'Network error. Please check your internet connection and try again.'],
    ['Connection refused', 'Network error. Please check your internet connection and try again.'],
    ['Internal server error', 'Server error. Please try again later or contact support if the problem persists.'],
    ['Server unavailable', 'Server error. Please try again later or contact support if the problem persists.'],
    ['', 'Login failed. Please check your email and password and try again.'],
    ['Something went wrong', 'Login failed. Please check your email and password and try again.'],
  ])('%j → %s', (message, expected) => {
    expect(shown(message)).toBe(expected)
  })

  test('case does not matter', () => {
    expect(shown('INVALID CREDENTIALS')).toBe('Invalid email or password. Please check your credentials and try again.')
  })

  test('a throttled sign-in says so rather than blaming the password', () => {
    expect(shown('Too many attempts. Please wait a while and try again.', 'RATE_LIMITED')).toBe('Too many sign-in attempts. Please wait a while and try again.')
  })

  test('a code of the API decides before the words do', () => {
    expect(shown('Ungültige Anmeldedaten', 'INVALID_CREDENTIALS')).toBe('Invalid email or password. Please check your credentials and try again.')
    expect(shown('The service is temporarily unavailable. Please try again shortly.', 'SERVICE_UNAVAILABLE')).toBe(
      'Server error. Please try again later or contact support if the problem persists.',
    )
    expect(shown('', 'TIMEOUT')).toBe('Network error. Please check your internet connection and try again.')
  })
})
