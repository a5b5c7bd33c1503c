import { safeReturnTo } from '~shared/return-to'

/**
 * Where the browser goes to sign in with a provider: the server's start, which keeps the
 * transaction and sends it on to the provider (`GET /api/auth/federation/:id/start`). A full
 * navigation, never a fetch: the provider's pages are not ours.
 */
export function providerStartUrl(providerId: string, options: { returnTo?: string | null | undefined; loginHint?: string | null | undefined } = {}): string {
  const query = new URLSearchParams({ returnTo: safeReturnTo(options.returnTo) })
  if (options.loginHint) query.set('login_hint', options.loginHint)
  return `/api/auth/federation/${encodeURIComponent(providerId)}/start?${query}`
}
