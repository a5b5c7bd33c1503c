import { type IdentityProvider, kindDefaults, type NewIdentityProvider } from '~shared/schemas/identity-providers'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { insertProvider, newProviderId, toIdentityProvider } from '~server/data/identity-providers/identity-providers'
import { type ProviderAction, requireAnsweringIssuer, requireFreeDomains, requireReadableSamlMetadata } from './provider-rules'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'

/**
 * Adds an identity provider. Its client secret is sealed before it is stored (decision 0510) and
 * never shown again; an `oidc` provider's issuer must answer discovery. The defaults are the
 * contract's: shown on the sign-in page, `trustEmail` only for Google, no sign-up, CLIENT; a
 * tenant, scopes or GitHub address left out or null is the kind's (`kindDefaults`).
 */
export async function createIdentityProvider(ctx: AppContext, action: ProviderAction, input: NewIdentityProvider): Promise<IdentityProvider> {
  await requireAnsweringIssuer(input.issuer)
  requireReadableSamlMetadata(input.samlMetadataXml)
  const defaults = kindDefaults(input.kind)
  return commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    await requireFreeDomains(c.trx, input.emailDomains, null)
    const row = await insertProvider(c.trx, {
      id: newProviderId(),
      kind: input.kind,
      name: input.name,
      enabled: input.enabled ?? true,
      show_on_sign_in: input.showOnSignIn ?? true,
      issuer: input.kind === 'oidc' ? input.issuer! : null,
      tenant: input.tenant ?? defaults.tenant,
      client_id: input.clientId ?? null,
      client_secret_sealed: input.clientSecret === undefined ? null : ctx.providerSecretSealer.seal(input.clientSecret),
      scopes: input.scopes ?? defaults.scopes,
      base_url: input.baseUrl ?? defaults.baseUrl,
      saml_metadata_xml: input.samlMetadataXml ?? null,
      saml_email_attribute: input.samlEmailAttribute ?? null,
      saml_name_attribute: input.samlNameAttribute ?? null,
      email_domains: input.emailDomains ?? [],
      trust_email: input.trustEmail ?? input.kind === 'google',
      allow_sign_up: input.allowSignUp ?? false,
      default_role: input.defaultRole ?? 'CLIENT',
      role_rules: input.roleRules ?? [],
      sync_roles: input.syncRoles ?? false,
      now: c.now,
    })
    await c.record({ userId: action.actorId, kind: 'security', activity: `Created identity provider ${row.name}`, details: row.id, ip: action.ip })
    return toIdentityProvider(row)
  })
}
