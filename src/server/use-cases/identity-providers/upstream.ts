import type * as client from 'openid-client'
import { effectiveIssuer, type ProviderWithSecret } from '~server/data/identity-providers/identity-providers'
import type { AppContext } from '~server/context'
import { githubConfiguration } from '~server/federation/github'
import { upstreamConfiguration } from '~server/federation/openid-connect'
import type { SamlProvider } from '~server/federation/saml'

/** Where a provider sends the browser back: what the admin pastes into the provider's console. */
export function callbackUrl(ctx: AppContext, providerId: string): string {
  return `${ctx.config.appUrl}/api/auth/federation/${encodeURIComponent(providerId)}/callback`
}

/**
 * Each provider's client secret as last unsealed, with the sealed bytes it came from: a secret is
 * unsealed again only when an admin changed it, not at every sign-in (the client configurations
 * below hold it anyway).
 */
const unsealed = new Map<string, { sealed: Buffer; secret: string | null }>()

function clientSecretOf(ctx: AppContext, provider: ProviderWithSecret): string | null {
  const sealed = provider.client_secret_sealed
  if (!sealed) return null
  const known = unsealed.get(provider.id)
  if (known && known.sealed.equals(sealed)) return known.secret
  const secret = ctx.providerSecretSealer.open(sealed)
  unsealed.set(provider.id, { sealed: Buffer.from(sealed), secret })
  return secret
}

/** The provider's client configuration (discovery, cached), with its client secret. */
export async function configurationOf(ctx: AppContext, provider: ProviderWithSecret): Promise<client.Configuration> {
  const issuer = effectiveIssuer(provider)
  const secret = clientSecretOf(ctx, provider)
  if (provider.kind === 'github') {
    if (!provider.base_url || !provider.client_id || secret === null) throw new Error('the provider is not configured for GitHub')
    return githubConfiguration({ baseUrl: provider.base_url, clientId: provider.client_id, clientSecret: secret })
  }
  if (!issuer || !provider.client_id || secret === null) throw new Error('the provider is not configured for OpenID Connect')
  return upstreamConfiguration({ providerId: provider.id, issuer, clientId: provider.client_id, clientSecret: secret })
}

/** A SAML provider's settings, as the SAML gate reads them. */
export function samlProviderOf(provider: ProviderWithSecret): SamlProvider {
  if (provider.kind !== 'saml' || !provider.saml_metadata_xml) throw new Error('the provider is not configured for SAML')
  return { id: provider.id, metadataXml: provider.saml_metadata_xml, emailAttribute: provider.saml_email_attribute, nameAttribute: provider.saml_name_attribute }
}
