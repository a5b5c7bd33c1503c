import { api } from '~web/lib/api-client'

/**
 * GET /auth/verify-email/{token}. A verification link works once, so the call is made once per
 * token even when the page's effect runs twice (React's strict mode, a remount): later callers
 * share the first call's outcome.
 */
const calls = new Map<string, Promise<void>>()

export function verifyEmail(token: string): Promise<void> {
  let call = calls.get(token)
  if (!call) {
    call = api.get(`/auth/verify-email/${encodeURIComponent(token)}`).then(() => undefined)
    calls.set(token, call)
  }
  return call
}
