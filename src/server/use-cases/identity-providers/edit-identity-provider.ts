import {
  type IdentityProvider,
  type IdentityProviderKind,
  type IdentityProviderUpdate,
  identityProviderMessages,
  kindDefaults,
  kindFieldIssues,
} from '~shared/schemas/identity-providers'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { type ProviderRecord, type ProviderValues, toIdentityProvider, updateProvider } from '~server/data/identity-providers/identity-providers'
import { fieldErrors } from '~server/http/errors'
import { lockExistingProvider, type ProviderAction, requireAnsweringIssuer, requireFreeDomains, requireReadableSamlMetadata } from './provider-rules'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'

type Field = Exclude<keyof IdentityProviderUpdate, 'kind' | 'clientSecret'>

const COLUMNS = {
  name: 'name',
  enabled: 'enabled',
  showOnSignIn: 'show_on_sign_in',
  issuer: 'issuer',
  tenant: 'tenant',
  clientId: 'client_id',
  scopes: 'scopes',
  baseUrl: 'base_url',
  samlMetadataXml: 'saml_metadata_xml',
  samlEmailAttribute: 'saml_email_attribute',
  samlNameAttribute: 'saml_name_attribute',
  emailDomains: 'email_domains',
  trustEmail: 'trust_email',
  allowSignUp: 'allow_sign_up',
  defaultRole: 'default_role',
  roleRules: 'role_rules',
  syncRoles: 'sync_roles',
} as const satisfies Record<Field, keyof ProviderRecord & keyof ProviderValues>

const text = (value: unknown): string | null => (value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value))

/**
 * An admin's edit of a provider. Its kind cannot change, and a field its kind does not take is
 * refused at the field; `null` for a tenant, scopes or GitHub address puts the kind's default back.
 * A new client secret replaces the old one (sealed; the entry says only that
 * it was replaced). A disabled provider signs nobody in from this commit on; its links stay.
 */
export async function editIdentityProvider(ctx: AppContext, action: ProviderAction, id: string, requested: IdentityProviderUpdate): Promise<IdentityProvider> {
  await requireAnsweringIssuer(requested.issuer)
  requireReadableSamlMetadata(requested.samlMetadataXml)
  return commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const current = await lockExistingProvider(c.trx, id)
    const kind = current.kind as IdentityProviderKind
    if (requested.kind !== undefined && requested.kind !== kind) throw fieldErrors([{ field: 'kind', message: identityProviderMessages.kindFixed }])
    const issues = kindFieldIssues(kind, requested, false)
    if (issues.length > 0) throw fieldErrors(issues)
    await requireFreeDomains(c.trx, requested.emailDomains, id)

    // `null` for a field with a default: back to the kind's default (decision 0519).
    const defaults = kindDefaults(kind)
    const values: Partial<ProviderValues> = {}
    const changes: { field: string; from: string | null; to: string | null }[] = []
    for (const [field, column] of Object.entries(COLUMNS) as [Field, (typeof COLUMNS)[Field]][]) {
      const next = requested[field] === null && Object.hasOwn(defaults, field) ? defaults[field as keyof typeof defaults] : requested[field]
      if (next === undefined || text(next) === text(current[column])) continue
      Object.assign(values, { [column]: next })
      changes.push({ field, from: text(current[column]), to: text(next) })
    }
    if (requested.clientSecret !== undefined) {
      values.client_secret_sealed = ctx.providerSecretSealer.seal(requested.clientSecret)
      changes.push({ field: 'clientSecret', from: null, to: '(replaced)' })
    }
    if (changes.length === 0) return toIdentityProvider(current)

    const updated = await updateProvider(c.trx, id, values, c.now)
    await c.record({
      userId: action.actorId,
      kind: 'security',
      activity: `Changed identity provider ${current.name}`,
      details: `${current.id}; ${changes.map((change) => `${change.field}: ${change.from ?? '(none)'} → ${change.to ?? '(none)'}`).join('; ')}`,
      changes,
      ip: action.ip,
    })
    return toIdentityProvider(updated)
  })
}
