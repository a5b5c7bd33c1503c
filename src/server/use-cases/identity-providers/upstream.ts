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

/** The provider's client configuration (discovery, cached), with its secret unsealed for this call only. */
export async function configurationOf(ctx: AppContext, provider: ProviderWithSecret): Promise<client.Configuration> {
  const issuer = effectiveIssuer(provider)
  const secret = provider.client_secret_sealed ? ctx.providerSecretSealer.open(provider.client_secret_sealed) : null
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
