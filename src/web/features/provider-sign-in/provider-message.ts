import { loginMessageKey } from '~web/features/auth/login-message'
import { type FailureCode, isApiError } from '~web/lib/failures'
import type { TranslationKey, Vars } from '~web/lib/i18n'

/**
 * What the sign-in page says when a provider sign-in did not finish (the `login-message.ts`
 * pattern): by the failure's code where it is a provider's, with the provider's name the server's
 * message holds ("… this <name> identity …"); else as a password sign-in's failure would be.
 */
const BY_CODE: Partial<Record<FailureCode, TranslationKey>> = {
  FEDERATION_FAILED: 'providerSignIn.failed',
  FEDERATION_NO_ACCOUNT: 'providerComplete.errors.noAccount',
  IDENTITY_LINKED_ELSEWHERE: 'providerComplete.errors.linkedElsewhere',
}

export function providerMessage(error: unknown): { key: TranslationKey; vars?: Vars } {
  if (!isApiError(error)) return { key: 'providerSignIn.failed' }
  const key = BY_CODE[error.code]
  if (!key) return { key: loginMessageKey(error.message, error.code) }
  if (key === 'providerSignIn.failed') return { key }
  const name = /this (.+) identity/.exec(error.message)?.[1]
  return name ? { key, vars: { name } } : { key: 'providerSignIn.failed' }
}
