import crypto from 'node:crypto'
import { type Selectable, sql, type Transaction } from 'kysely'
import type { Role } from '~shared/constants'
import type { IdentityProvider, IdentityProviderKind, RoleRule } from '~shared/schemas/identity-providers'
import type { Database, Db, IdentityProvidersTable } from '~server/db/types'
import { prefixedColumns, unprefixed } from '~server/db/joined-columns'

/**
 * Rows of the identity providers. A provider becomes the API's object in `toIdentityProvider`
 * only; the sealed client secret is read by `findProviderForSignIn` alone, for the sign-in, and
 * never leaves the server (the API says only `hasClientSecret`).
 */

export const PROVIDER_COLUMNS = [
  'id',
  'kind',
  'name',
  'enabled',
  'show_on_sign_in',
  'issuer',
  'tenant',
  'client_id',
  'scopes',
  'base_url',
  'saml_metadata_xml',
  'saml_email_attribute',
  'saml_name_attribute',
  'email_domains',
  'trust_email',
  'allow_sign_up',
  'default_role',
  'role_rules',
  'sync_roles',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof IdentityProvidersTable)[]
export type ProviderRecord = Pick<Selectable<IdentityProvidersTable>, (typeof PROVIDER_COLUMNS)[number]> & { has_client_secret: boolean }
/** A provider with its sealed client secret: for the sign-in only. */
export type ProviderWithSecret = ProviderRecord & { client_secret_sealed: Buffer | null }

/** Google's and Microsoft's issuers: the presets of `oidc` the product knows. */
export const GOOGLE_ISSUER = 'https://accounts.google.com'
export const microsoftIssuer = (tenant: string) => `https://login.microsoftonline.com/${tenant}/v2.0`

/** The issuer the sign-in discovers: the one configured, or the preset's. */
export function effectiveIssuer(row: Pick<ProviderRecord, 'kind' | 'issuer' | 'tenant'>): string | null {
  if (row.kind === 'google') return GOOGLE_ISSUER
  if (row.kind === 'microsoft') return microsoftIssuer(row.tenant ?? 'organizations')
  return row.issuer
}

export function newProviderId(): string {
  return `idp_${crypto.randomBytes(12).toString('base64url')}`
}

export function toIdentityProvider(row: ProviderRecord): IdentityProvider {
  return {
    id: row.id,
    kind: row.kind as IdentityProviderKind,
    name: row.name,
    enabled: row.enabled,
    showOnSignIn: row.show_on_sign_in,
    issuer: effectiveIssuer(row),
    tenant: row.tenant,
    clientId: row.client_id,
    hasClientSecret: row.has_client_secret,
    scopes: row.scopes,
    baseUrl: row.base_url,
    samlMetadataXml: row.saml_metadata_xml,
    samlEmailAttribute: row.saml_email_attribute,
    samlNameAttribute: row.saml_name_attribute,
    emailDomains: row.email_domains,
    trustEmail: row.trust_email,
    allowSignUp: row.allow_sign_up,
    defaultRole: row.default_role,
    roleRules: row.role_rules,
    syncRoles: row.sync_roles,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

function selectProviders(db: Db) {
  return db
    .selectFrom('identity_providers')
    .select(PROVIDER_COLUMNS)
    .select(sql<boolean>`client_secret_sealed IS NOT NULL`.as('has_client_secret'))
}

/** Every provider, oldest first. */
export function listProviders(db: Db): Promise<ProviderRecord[]> {
  return selectProviders(db).orderBy('created_at').orderBy('id').execute()
}

export function findProvider(db: Db, id: string): Promise<ProviderRecord | undefined> {
  return selectProviders(db).where('id', '=', id).executeTakeFirst()
}

/**
 * The provider's columns for a statement that joins `identity_providers` to the row a step claims
 * (federation-transactions.ts), so that the provider comes in the claim's own round trip: each
 * column named `p_<column>`, read back by `providerOfRow`.
 */
export function providerForSignInColumns(alias: string) {
  return sql.join([
    prefixedColumns(alias, [...PROVIDER_COLUMNS, 'client_secret_sealed'], 'p'),
    sql`${sql.ref(`${alias}.client_secret_sealed`)} IS NOT NULL AS p_has_client_secret`,
  ])
}

/** The provider a joined row holds (see above), or undefined when the join found none. */
export function providerOfRow(row: Record<string, unknown>): ProviderWithSecret | undefined {
  return unprefixed<ProviderWithSecret>(row, [...PROVIDER_COLUMNS, 'client_secret_sealed', 'has_client_secret'], 'p')
}

/** The provider with its sealed secret, for a sign-in through it. */
export function findProviderForSignIn(db: Db, id: string): Promise<ProviderWithSecret | undefined> {
  return selectProviders(db).select('client_secret_sealed').where('id', '=', id).executeTakeFirst()
}

/** The provider, locked until the transaction ends (an edit reads what it changes from). */
export function lockProvider(trx: Transaction<Database>, id: string): Promise<ProviderRecord | undefined> {
  return selectProviders(trx).where('id', '=', id).forUpdate().executeTakeFirst()
}

/** The enabled providers the sign-in and registration pages offer, oldest first. */
export function listSignInProviders(db: Db): Promise<{ id: string; name: string; kind: string }[]> {
  return db
    .selectFrom('identity_providers')
    .select(['id', 'name', 'kind'])
    .where('enabled', '=', true)
    .where('show_on_sign_in', '=', true)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

/** The enabled provider whose e-mail domains hold this domain, if any. */
export function findProviderByDomain(db: Db, domain: string): Promise<{ id: string; name: string } | undefined> {
  return db
    .selectFrom('identity_providers')
    .select(['id', 'name'])
    .where('enabled', '=', true)
    .where((eb) => eb(eb.val(domain), '=', eb.fn.any('email_domains')))
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst()
}

/** Other providers that already claim one of these domains (a domain routes to one provider). */
export async function domainsClaimedElsewhere(db: Db, domains: readonly string[], exceptId: string | null): Promise<string[]> {
  if (domains.length === 0) return []
  let query = db.selectFrom('identity_providers').select('email_domains')
  if (exceptId) query = query.where('id', '<>', exceptId)
  const rows = await query.execute()
  const claimed = new Set(rows.flatMap((row) => row.email_domains))
  return domains.filter((domain) => claimed.has(domain))
}

export interface ProviderValues {
  name: string
  enabled: boolean
  show_on_sign_in: boolean
  issuer: string | null
  tenant: string | null
  client_id: string | null
  client_secret_sealed: Buffer | null
  scopes: string[] | null
  base_url: string | null
  saml_metadata_xml: string | null
  saml_email_attribute: string | null
  saml_name_attribute: string | null
  email_domains: string[]
  trust_email: boolean
  allow_sign_up: boolean
  default_role: Role
  role_rules: RoleRule[]
  sync_roles: boolean
}

const forStorage = (values: Partial<ProviderValues>) => {
  const { role_rules, ...rest } = values
  return role_rules === undefined ? rest : { ...rest, role_rules: JSON.stringify(role_rules) }
}

export async function insertProvider(trx: Transaction<Database>, values: ProviderValues & { id: string; kind: string; now: Date }): Promise<ProviderRecord> {
  const { now, ...rest } = values
  await trx
    .insertInto('identity_providers')
    .values({ ...forStorage(rest), id: rest.id, kind: rest.kind, name: rest.name, created_at: now, updated_at: now })
    .execute()
  return (await findProvider(trx, values.id))!
}

export async function updateProvider(trx: Transaction<Database>, id: string, values: Partial<ProviderValues>, now: Date): Promise<ProviderRecord> {
  await trx
    .updateTable('identity_providers')
    .set({ ...forStorage(values), updated_at: now })
    .where('id', '=', id)
    .execute()
  return (await findProvider(trx, id))!
}

/** Deletes the provider; its identities and transactions go with it (foreign keys). */
export async function deleteProviderRow(trx: Transaction<Database>, id: string): Promise<{ id: string; name: string; identities: number } | undefined> {
  const identities = await trx
    .selectFrom('federated_identities')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('provider_id', '=', id)
    .executeTakeFirstOrThrow()
  const row = await trx.deleteFrom('identity_providers').where('id', '=', id).returning(['id', 'name']).executeTakeFirst()
  return row ? { ...row, identities: Number(identities.n) } : undefined
}
