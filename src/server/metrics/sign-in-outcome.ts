/**
 * A sign-in's outcome, told from its answer: the status, and for a 403 the envelope's code. Read
 * from the answer rather than counted inside the sign-in route, so every way the route can end
 * (a throttle, a full hash queue, a database outage) is counted, and the route stays as it is.
 */
export const SIGN_IN_OUTCOMES = [
  'success',
  'second_factor_required',
  'invalid_credentials',
  'email_not_verified',
  'account_inactive',
  'account_suspended',
  'refused',
  'throttled',
  'invalid_request',
  'unavailable',
  'error',
] as const

export type SignInOutcome = (typeof SIGN_IN_OUTCOMES)[number]

const REFUSALS: Record<string, SignInOutcome> = {
  EMAIL_NOT_VERIFIED: 'email_not_verified',
  ACCOUNT_INACTIVE: 'account_inactive',
  ACCOUNT_SUSPENDED: 'account_suspended',
}

export function signInOutcome(status: number, payload: unknown): SignInOutcome {
  const text = typeof payload === 'string' ? payload : ''
  if (status === 200) return text.includes('"mfaRequired":true') ? 'second_factor_required' : 'success'
  if (status === 401) return 'invalid_credentials'
  if (status === 403) return REFUSALS[/"code":"([A-Z_]+)"/.exec(text)?.[1] ?? ''] ?? 'refused'
  if (status === 429) return 'throttled'
  if (status === 503) return 'unavailable'
  if (status >= 500) return 'error'
  return 'invalid_request'
}
