import type { AppContext } from '~server/context'
import { findProvider } from '~server/data/identity-providers/identity-providers'
import { samlServiceProviderMetadata } from '~server/federation/saml'
import { providerNotFound } from './provider-rules'

/** The product's SP metadata for a SAML provider (enabled or not: an admin sets up the other side first); 404 for any other id. */
export async function samlMetadataOf(ctx: AppContext, providerId: string): Promise<string> {
  const provider = await findProvider(ctx.db, providerId)
  if (provider?.kind !== 'saml') throw providerNotFound()
  return samlServiceProviderMetadata(ctx.config.appUrl, provider.id)
}
