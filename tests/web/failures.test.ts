import { describe, expect, test } from 'vitest'
import { ApiError, blockedStateOf, deservesToast, failureCodeOf, failureText } from '~web/lib/failures'

/** Failed calls are handled by their code; the catalogue's words decide only which get no toast. */
describe('failures', () => {
  test('an account state comes from the code, whatever the wording', () => {
    expect(blockedStateOf(new ApiError(403, 'Konto gesperrt', 'ACCOUNT_SUSPENDED'))).toBe('suspended')
    expect(blockedStateOf(new ApiError(403, 'Compte inactif', 'ACCOUNT_INACTIVE'))).toBe('inactive')
    expect(blockedStateOf(new ApiError(403, 'You do not have permission to perform this action', 'FORBIDDEN'))).toBeNull()
    expect(blockedStateOf(new Error('Account is suspended'))).toBeNull()
  })

  test('a code the API does not have is UNKNOWN', () => {
    expect(failureCodeOf('EMAIL_TAKEN')).toBe('EMAIL_TAKEN')
    expect(failureCodeOf('HTTP_502')).toBe('UNKNOWN')
    expect(failureCodeOf(undefined)).toBe('UNKNOWN')
  })

  test.each([
    ['a sign-in failure', new ApiError(403, 'E-Mail nicht bestätigt', 'EMAIL_NOT_VERIFIED'), false],
    ['a blocked account', new ApiError(403, 'Konto gesperrt', 'ACCOUNT_SUSPENDED'), false],
    ['a message mentioning a suspended account, without a code', new ApiError(403, 'Account is suspended'), false],
    ['an ended session', new ApiError(401, 'Your session has ended. Please sign in again.', 'SESSION_ENDED'), false],
    ['a cancelled call', new DOMException('The operation was aborted.', 'AbortError'), false],
    ['a refused edit', new ApiError(409, 'At least one active administrator must remain', 'LAST_ADMIN'), true],
    ['an unreachable server', new ApiError(0, 'Network error: the server could not be reached', 'NETWORK_ERROR'), true],
  ])('%s gets a toast: %s', (_, error, toast) => {
    expect(deservesToast(error)).toBe(toast)
  })

  test("a failure's text is the server's message, else the fallback", () => {
    expect(failureText(new ApiError(409, 'User must be inactive before deletion', 'NOT_INACTIVE'), 'Failed to delete user')).toBe('User must be inactive before deletion')
    expect(failureText(new ApiError(502, '', 'UNKNOWN'), 'Failed to delete user')).toBe('Failed to delete user')
    expect(failureText(new TypeError('boom'), 'Failed to delete user')).toBe('Failed to delete user')
  })
})
