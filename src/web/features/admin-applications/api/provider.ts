import { queryOptions, useQuery } from '@tanstack/react-query'
import { z } from 'zod'
import { paths } from '~web/config/paths'

/**
 * Where an app finds this provider, as the server itself says it in its discovery document: the
 * issuer is APP_URL/oidc, and APP_URL can differ from the address the admin's browser opened
 * (behind a proxy, or in development through Vite), so the web app never builds it from its own
 * origin. The document is fetched from this origin, which the server serves as APP_URL's.
 */

export const DISCOVERY_PATH = `${paths.oidc}/.well-known/openid-configuration`

const discoverySchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  userinfo_endpoint: z.string(),
  jwks_uri: z.string(),
  end_session_endpoint: z.string(),
})

/** The addresses an app's OpenID Connect library is given, in the order an admin copies them. */
export interface DiscoveredAddresses {
  issuer: string
  discovery: string
  authorization: string
  token: string
  userinfo: string
  jwks: string
  endSession: string
}

export async function getProviderAddresses(signal?: AbortSignal): Promise<DiscoveredAddresses> {
  const response = await fetch(DISCOVERY_PATH, { signal, headers: { Accept: 'application/json' } })
  if (!response.ok) throw new Error(`Discovery answered ${response.status}`)
  const document = discoverySchema.parse(await response.json())
  return {
    issuer: document.issuer,
    discovery: `${document.issuer}/.well-known/openid-configuration`,
    authorization: document.authorization_endpoint,
    token: document.token_endpoint,
    userinfo: document.userinfo_endpoint,
    jwks: document.jwks_uri,
    endSession: document.end_session_endpoint,
  }
}

/** Fetched once per page load: the addresses change only with APP_URL, which needs a restart. */
export const providerAddressesQueryOptions = () =>
  queryOptions({ queryKey: ['provider-addresses'], queryFn: ({ signal }) => getProviderAddresses(signal), staleTime: Infinity })

export function useProviderAddresses() {
  return useQuery(providerAddressesQueryOptions())
}
