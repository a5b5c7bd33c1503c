import type { SignInProvider } from '~shared/schemas/identity-providers'
import { api } from '~web/lib/api-client'

/**
 * What the sign-in page asks before anything of the provider sign-in loads (contract section 10):
 * the providers it shows, and the one an address's domain routes to. Kept small: it ships with
 * the sign-in page; the buttons come in a chunk of their own, only when there is a provider.
 */
export type ProviderChoice = Pick<SignInProvider, 'id' | 'name'>

/** GET /auth/identity-providers: the enabled providers shown on the sign-in and registration pages. */
export const listSignInProviders = async (): Promise<ProviderChoice[]> =>
  (await api.get<{ identityProviders: ProviderChoice[] }>('/auth/identity-providers')).data.identityProviders

/** GET /auth/identity-providers/discover: the provider whose domain the address is in, or null. */
export const discoverProvider = async (email: string): Promise<ProviderChoice | null> =>
  (await api.get<{ identityProvider: ProviderChoice | null }>('/auth/identity-providers/discover', { query: { email } })).data.identityProvider
