import type { Transaction } from 'kysely'
import { identityProviderMessages } from '~shared/schemas/identity-providers'
import { domainsClaimedElsewhere, lockProvider, type ProviderRecord } from '~server/data/identity-providers/identity-providers'
import type { Database, Db } from '~server/db/types'
import { issuerAnswers } from '~server/federation/openid-connect'
import { readSamlMetadata } from '~server/federation/saml'
import { type FieldError, fieldErrors, notFound } from '~server/http/errors'

/** Who changes a provider, from where: the admin named on the activity entry. */
export interface ProviderAction {
  actorId: string
  ip: string
}

export const providerNotFound = () => notFound(identityProviderMessages.notFound, 'IDENTITY_PROVIDER_NOT_FOUND')

/** The provider, locked for the change; a 404 when it does not exist (or was just deleted). */
export async function lockExistingProvider(trx: Transaction<Database>, id: string): Promise<ProviderRecord> {
  const provider = await lockProvider(trx, id)
  if (!provider) throw providerNotFound()
  return provider
}

/**
 * An `oidc` provider's issuer must answer its discovery document before it is saved (checked
 * outside the transaction: a slow provider holds no lock).
 */
export async function requireAnsweringIssuer(issuer: string | undefined): Promise<void> {
  if (issuer !== undefined && !(await issuerAnswers(issuer))) throw fieldErrors([{ field: 'issuer', message: identityProviderMessages.discovery }])
}

/**
 * A SAML provider's pasted metadata must name its entity ID, a sign-in URL for the redirect binding
 * and a signing certificate: what every sign-in reads from it.
 */
export function requireReadableSamlMetadata(metadataXml: string | undefined): void {
  if (metadataXml === undefined) return
  try {
    readSamlMetadata(metadataXml)
  } catch {
    throw fieldErrors([{ field: 'samlMetadataXml', message: identityProviderMessages.samlMetadata }])
  }
}

/** A domain routes to one provider: one another provider claims is refused at the field. */
export async function requireFreeDomains(db: Db, domains: readonly string[] | undefined, exceptId: string | null): Promise<void> {
  if (!domains) return
  const taken = await domainsClaimedElsewhere(db, domains, exceptId)
  if (taken.length > 0) throw fieldErrors([{ field: 'emailDomains', message: `${identityProviderMessages.domainTaken}: ${taken.join(', ')}` } satisfies FieldError])
}
