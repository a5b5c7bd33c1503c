import { useQuery } from '@tanstack/react-query'
import { z } from 'zod'
import { paths } from '~web/config/paths'

/**
 * APP_URL as the server itself says it: its discovery document's issuer is APP_URL/oidc. The
 * browser's origin can differ (behind a proxy, or through Vite in development), and a redirect URI
 * an admin pastes into a provider's console must be the server's, so it is never built from it.
 */
export async function getAppUrl(signal?: AbortSignal): Promise<string> {
  const response = await fetch(`${paths.oidc}/.well-known/openid-configuration`, { signal, headers: { Accept: 'application/json' } })
  if (!response.ok) throw new Error(`Discovery answered ${response.status}`)
  const { issuer } = z.object({ issuer: z.string() }).parse(await response.json())
  return issuer.replace(/\/oidc$/, '')
}

/** Fetched once per page load: APP_URL changes only with a restart. */
export function useAppUrl() {
  return useQuery({ queryKey: ['app-url'], queryFn: ({ signal }) => getAppUrl(signal), staleTime: Infinity })
}

/** Where a provider sends people back to, to paste into its console. */
export function redirectUriOf(appUrl: string, providerId: string): string {
  return `${appUrl}/api/auth/federation/${encodeURIComponent(providerId)}/callback`
}

/**
 * A SAML provider's addresses at this product: its entity ID, which is also where assertions are
 * posted (the ACS URL), and its service-provider metadata (contract section 10).
 */
export function samlAddressesOf(appUrl: string, providerId: string): { entityId: string; metadataUrl: string } {
  const entityId = `${appUrl}/api/auth/federation/${encodeURIComponent(providerId)}/saml`
  return { entityId, metadataUrl: `${entityId}/metadata` }
}
