import type { TranslationKey } from '~web/lib/i18n'

/**
 * What the sign-in page says for a failed sign-in, by the text of the server's message (the
 * spec's mapping table, section 8, in its order; anything else is the generic text). A throttled
 * sign-in says so instead of blaming the password.
 */
export function loginMessageKey(message: string | null | undefined, code?: string): TranslationKey {
  const text = (message ?? '').toLowerCase()
  if (code === 'RATE_LIMITED') return 'login.errors.tooManyAttempts'
  if (text.includes('no account found') || text.includes('email not found')) return 'login.errors.noAccount'
  if (text.includes('password')) return 'login.errors.password'
  if (text.includes('invalid credentials')) return 'login.errors.invalidCredentials'
  if (text.includes('email not verified')) return 'login.errors.notVerified'
  if (text.includes('network') || text.includes('connection')) return 'login.errors.network'
  if (text.includes('server') || text.includes('internal')) return 'login.errors.server'
  return 'login.errors.generic'
}
