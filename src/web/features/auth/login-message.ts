import type { FailureCode } from '~web/lib/failures'
import type { TranslationKey } from '~web/lib/i18n'

/**
 * What the sign-in page says for a failed sign-in: by the failure's code where it has one of
 * these, else by the words of the server's message, as the product's error catalogue maps them
 * (in its order; anything else is the generic text).
 */
const BY_CODE: Partial<Record<FailureCode, TranslationKey>> = {
  RATE_LIMITED: 'login.errors.tooManyAttempts',
  INVALID_CODE: 'twoFactor.invalidCode',
  INVALID_CREDENTIALS: 'login.errors.invalidCredentials',
  EMAIL_NOT_VERIFIED: 'login.errors.notVerified',
  NETWORK_ERROR: 'login.errors.network',
  TIMEOUT: 'login.errors.network',
  INTERNAL_ERROR: 'login.errors.server',
  SERVICE_UNAVAILABLE: 'login.errors.server',
}

export function loginMessageKey(message: string | null | undefined, code?: FailureCode): TranslationKey {
  const byCode = code ? BY_CODE[code] : undefined
  if (byCode) return byCode
  const text = (message ?? '').toLowerCase()
  if (text.includes('no account found') || text.includes('email not found')) return 'login.errors.noAccount'
  if (text.includes('password')) return 'login.errors.password'
  if (text.includes('invalid credentials')) return 'login.errors.invalidCredentials'
  if (text.includes('email not verified')) return 'login.errors.notVerified'
  if (text.includes('network') || text.includes('connection')) return 'login.errors.network'
  if (text.includes('server') || text.includes('internal')) return 'login.errors.server'
  return 'login.errors.generic'
}
