import { z } from 'zod'
import { ROLES } from '../constants'
import { emailField } from './fields'
import { LOOPBACK_HOSTNAMES } from '../loopback'
import { parsedUrl } from '../parsed-url'

/**
 * The identity providers people sign in with (contract section 10), as admins configure them: the
 * request's fields with their messages, which fields each kind takes, and the provider as the API
 * shows it (never its client secret, which is kept sealed and only said to exist).
 *
 * A kind is a row of `KIND_FIELDS`: the fields it takes, and which of them it needs. A new kind
 * (SAML) adds its row and its member of `IDENTITY_PROVIDER_KINDS`; the request schema stays one.
 */

export const IDENTITY_PROVIDER_KINDS = ['oidc', 'google', 'microsoft', 'github', 'saml'] as const
export type IdentityProviderKind = (typeof IDENTITY_PROVIDER_KINDS)[number]

export const PROVIDER_NAME_MAX = 50
export const PROVIDER_URL_MAX = 2000
export const PROVIDER_DOMAINS_MAX = 50
export const PROVIDER_RULES_MAX = 50
export const PROVIDER_SCOPES_MAX = 30
/** A pasted metadata document: Entra ID's is about 20 KB; federations' aggregates are not what is pasted here. */
export const SAML_METADATA_MAX = 200_000
export const SAML_ATTRIBUTE_MAX = 200

/** Fields that only some kinds take. */
export const KIND_FIELD_NAMES = [
  'issuer',
  'tenant',
  'clientId',
  'clientSecret',
  'scopes',
  'baseUrl',
  'samlMetadataXml',
  'samlEmailAttribute',
  'samlNameAttribute',
] as const
export type KindField = (typeof KIND_FIELD_NAMES)[number]

export const KIND_FIELDS: Record<IdentityProviderKind, { takes: readonly KindField[]; needs: readonly KindField[] }> = {
  oidc: { takes: ['issuer', 'clientId', 'clientSecret', 'scopes'], needs: ['issuer', 'clientId', 'clientSecret'] },
  google: { takes: ['clientId', 'clientSecret', 'scopes'], needs: ['clientId', 'clientSecret'] },
  microsoft: { takes: ['tenant', 'clientId', 'clientSecret', 'scopes'], needs: ['clientId', 'clientSecret'] },
  github: { takes: ['clientId', 'clientSecret', 'scopes', 'baseUrl'], needs: ['clientId', 'clientSecret'] },
  saml: { takes: ['samlMetadataXml', 'samlEmailAttribute', 'samlNameAttribute'], needs: ['samlMetadataXml'] },
}

/** Where a SAML provider's e-mail and name are read when the admin names no attribute (contract section 10). */
export const DEFAULT_SAML_EMAIL_ATTRIBUTES = [
  'mail',
  'email',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
] as const
export const DEFAULT_SAML_NAME_ATTRIBUTES = [
  'displayName',
  'name',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
  'urn:oid:2.16.840.1.113730.3.1.241',
] as const

export const DEFAULT_OIDC_SCOPES = ['openid', 'email', 'profile'] as const
export const DEFAULT_GITHUB_SCOPES = ['read:user', 'user:email'] as const
export const DEFAULT_MICROSOFT_TENANT = 'organizations'
export const DEFAULT_GITHUB_BASE_URL = 'https://github.com'

/**
 * The defaults of a kind (decision 0519): what a provider gets for a field with a default when the
 * request leaves it out (on create) or sends `null` (on create or edit, "back to the default");
 * null for a field its kind does not take.
 */
export function kindDefaults(kind: IdentityProviderKind): { tenant: string | null; scopes: string[] | null; baseUrl: string | null } {
  const takes = KIND_FIELDS[kind].takes
  return {
    tenant: takes.includes('tenant') ? DEFAULT_MICROSOFT_TENANT : null,
    scopes: takes.includes('scopes') ? [...(kind === 'github' ? DEFAULT_GITHUB_SCOPES : DEFAULT_OIDC_SCOPES)] : null,
    baseUrl: takes.includes('baseUrl') ? DEFAULT_GITHUB_BASE_URL : null,
  }
}

export const identityProviderMessages = {
  nameRequired: 'Provider name is required',
  nameMax: `Provider name must be at most ${PROVIDER_NAME_MAX} characters`,
  nameControl: 'Provider name must not contain control characters',
  kind: `Kind must be one of ${IDENTITY_PROVIDER_KINDS.join(', ')}`,
  kindFixed: 'The kind of a provider cannot be changed',
  notForKind: 'This field does not apply to this kind of provider',
  required: 'This field is required for this kind of provider',
  url: 'Must be an https URL, or http on localhost, 127.0.0.1 or [::1], without user name, password or fragment',
  tenant: 'Tenant must be common, organizations, consumers, a tenant id or a domain',
  clientId: 'Client ID must be 1 to 500 characters',
  clientSecret: 'Client secret must be 1 to 1000 characters',
  scopes: 'Scopes must be a list of scope names (letters, digits and : . _ / -)',
  domains: 'Email domains must be a list of domain names, such as example.com',
  domainTaken: 'Another provider already signs in this domain',
  role: 'Unknown role',
  defaultRoleAdmin: 'The default role cannot be ADMIN',
  roleRules: `Role rules must be a list of at most ${PROVIDER_RULES_MAX} { claim, value, role }`,
  boolean: 'Must be true or false',
  nothingToUpdate: 'Nothing to update',
  notFound: 'Identity provider not found',
  discovery: 'The provider’s OpenID Connect discovery document could not be read from this issuer',
  samlMetadata: 'SAML metadata must be the identity provider’s metadata XML document',
  samlMetadataTooLarge: `SAML metadata must be at most ${SAML_METADATA_MAX} characters`,
  samlAttribute: `Attribute names must be 1 to ${SAML_ATTRIBUTE_MAX} characters without control characters`,
} as const

/** `https`, or `http` on a loopback host; no credentials, no fragment. Company providers live on private networks: any host. */
export const providerUrlField = z
  .string({ error: identityProviderMessages.url })
  .max(PROVIDER_URL_MAX, { error: identityProviderMessages.url, abort: true })
  .trim()
  .refine(
    (value) => {
      const url = /^[^\s\p{Cc}]+$/u.test(value) ? parsedUrl(value) : null
      if (!url || !/^https?:\/\//i.test(value) || value.includes('#') || url.username !== '' || url.password !== '') return false
      return url.protocol === 'https:' || LOOPBACK_HOSTNAMES.includes(url.hostname)
    },
    { error: identityProviderMessages.url },
  )
  // One spelling: no trailing slash, so `${url}/.well-known/…` is what the provider publishes.
  .transform((value) => value.replace(/\/+$/, ''))

export const providerNameField = z
  .string({ error: identityProviderMessages.nameRequired })
  .max(PROVIDER_NAME_MAX * 2, { error: identityProviderMessages.nameMax, abort: true })
  .trim()
  .min(1, { error: identityProviderMessages.nameRequired })
  .refine((value) => Array.from(value).length <= PROVIDER_NAME_MAX, { error: identityProviderMessages.nameMax })
  .regex(/^[^\p{Cc}]*$/u, { error: identityProviderMessages.nameControl })

const booleanField = z.boolean({ error: identityProviderMessages.boolean })
const tenantField = z
  .string({ error: identityProviderMessages.tenant })
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,98}[A-Za-z0-9])?$/, { error: identityProviderMessages.tenant })
/** No control characters (a NUL cannot even be stored) in what is sent to the provider or compared to claims. */
const NO_CONTROL = /^[^\p{Cc}]*$/u
const clientIdField = z
  .string({ error: identityProviderMessages.clientId })
  .max(500, { error: identityProviderMessages.clientId, abort: true })
  .trim()
  .min(1, { error: identityProviderMessages.clientId })
  .regex(NO_CONTROL, { error: identityProviderMessages.clientId })
const clientSecretField = z
  .string({ error: identityProviderMessages.clientSecret })
  .min(1, { error: identityProviderMessages.clientSecret })
  .max(1000, { error: identityProviderMessages.clientSecret })
  .regex(NO_CONTROL, { error: identityProviderMessages.clientSecret })
const scopesField = z
  .array(z.string({ error: identityProviderMessages.scopes }).regex(/^[A-Za-z0-9:._/-]{1,100}$/, { error: identityProviderMessages.scopes }), {
    error: identityProviderMessages.scopes,
  })
  .min(1, { error: identityProviderMessages.scopes })
  .max(PROVIDER_SCOPES_MAX, { error: identityProviderMessages.scopes, abort: true })
  .transform((scopes) => [...new Set(scopes)])
const samlMetadataXmlField = z
  .string({ error: identityProviderMessages.samlMetadata })
  .max(SAML_METADATA_MAX, { error: identityProviderMessages.samlMetadataTooLarge, abort: true })
  .trim()
  .min(1, { error: identityProviderMessages.samlMetadata })
/** An attribute's `Name` as the identity provider sends it; null: the contract's default list. */
const samlAttributeField = z
  .string({ error: identityProviderMessages.samlAttribute })
  .max(SAML_ATTRIBUTE_MAX * 2, { error: identityProviderMessages.samlAttribute, abort: true })
  .trim()
  .min(1, { error: identityProviderMessages.samlAttribute })
  .max(SAML_ATTRIBUTE_MAX, { error: identityProviderMessages.samlAttribute })
  .regex(NO_CONTROL, { error: identityProviderMessages.samlAttribute })
  .nullable()
const emailDomainsField = z
  .array(
    z
      .string({ error: identityProviderMessages.domains })
      .max(253, { error: identityProviderMessages.domains, abort: true })
      .trim()
      .toLowerCase()
      .regex(/^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, { error: identityProviderMessages.domains }),
    { error: identityProviderMessages.domains },
  )
  .max(PROVIDER_DOMAINS_MAX, { error: identityProviderMessages.domains, abort: true })
  .transform((domains) => [...new Set(domains)])
const roleField = z.enum(ROLES, { error: identityProviderMessages.role })
const defaultRoleField = roleField.refine((role) => role !== 'ADMIN', { error: identityProviderMessages.defaultRoleAdmin })
export const roleRuleSchema = z.strictObject(
  {
    claim: z
      .string({ error: identityProviderMessages.roleRules })
      .trim()
      .min(1, { error: identityProviderMessages.roleRules })
      .max(200, { error: identityProviderMessages.roleRules })
      .regex(NO_CONTROL, { error: identityProviderMessages.roleRules }),
    value: z
      .string({ error: identityProviderMessages.roleRules })
      .min(1, { error: identityProviderMessages.roleRules })
      .max(500, { error: identityProviderMessages.roleRules })
      .regex(NO_CONTROL, { error: identityProviderMessages.roleRules }),
    role: roleField,
  },
  { error: identityProviderMessages.roleRules },
)
export type RoleRule = z.infer<typeof roleRuleSchema>
const roleRulesField = z
  .array(roleRuleSchema, { error: identityProviderMessages.roleRules })
  .max(PROVIDER_RULES_MAX, { error: identityProviderMessages.roleRules, abort: true })

/** The fields every kind shares, and the ones of some kinds; all optional here, the kind decides below. */
const providerFields = {
  name: providerNameField,
  enabled: booleanField,
  showOnSignIn: booleanField,
  issuer: providerUrlField,
  // `null`: the kind's default (`kindDefaults`), so that an edit can go back to it.
  tenant: tenantField.nullable(),
  clientId: clientIdField,
  clientSecret: clientSecretField,
  scopes: scopesField.nullable(),
  baseUrl: providerUrlField.nullable(),
  samlMetadataXml: samlMetadataXmlField,
  // `null`: the contract's default lists (stored as null), so that an edit can go back to them.
  samlEmailAttribute: samlAttributeField.nullable(),
  samlNameAttribute: samlAttributeField.nullable(),
  emailDomains: emailDomainsField,
  trustEmail: booleanField,
  allowSignUp: booleanField,
  defaultRole: defaultRoleField,
  roleRules: roleRulesField,
  syncRoles: booleanField,
}

/** Field issues for a kind: a field it does not take, or one it needs and lacks (on create). */
export function kindFieldIssues(kind: IdentityProviderKind, value: Partial<Record<KindField, unknown>>, creating: boolean): { field: KindField; message: string }[] {
  const { takes, needs } = KIND_FIELDS[kind]
  const issues: { field: KindField; message: string }[] = []
  for (const field of KIND_FIELD_NAMES) {
    const given = value[field] !== undefined
    if (given && !takes.includes(field)) issues.push({ field, message: identityProviderMessages.notForKind })
    if (creating && !given && needs.includes(field)) issues.push({ field, message: identityProviderMessages.required })
  }
  return issues
}

const kindField = z.enum(IDENTITY_PROVIDER_KINDS, { error: identityProviderMessages.kind })

/**
 * Every field of the request, each optional: an edit may send any of them. A new provider's schema
 * is this one with `kind` and `name` required and what its kind needs; an edit's, this one as it is.
 */
const identityProviderRequestSchema = z.strictObject({ kind: kindField, ...providerFields }).partial()

export const createIdentityProviderSchema = identityProviderRequestSchema.extend({ kind: kindField, name: providerFields.name }).superRefine((value, ctx) => {
  for (const issue of kindFieldIssues(value.kind, value, true)) ctx.addIssue({ code: 'custom', path: [issue.field], message: issue.message })
})
export type CreateIdentityProviderInput = z.input<typeof createIdentityProviderSchema>
export type NewIdentityProvider = z.output<typeof createIdentityProviderSchema>

/** An edit: any field; `kind` only with the kind the provider has; a new `clientSecret` replaces the old. */
export const updateIdentityProviderSchema = identityProviderRequestSchema.refine((value) => Object.values(value).some((field) => field !== undefined), {
  error: identityProviderMessages.nothingToUpdate,
})
export type UpdateIdentityProviderInput = z.input<typeof updateIdentityProviderSchema>
export type IdentityProviderUpdate = z.output<typeof updateIdentityProviderSchema>

export const identityProviderParamsSchema = z.object({ id: z.string() })

/** A provider as the API shows it; fields that do not apply to its kind are null. */
export const identityProviderSchema = z.object({
  id: z.string(),
  kind: z.enum(IDENTITY_PROVIDER_KINDS),
  name: z.string(),
  enabled: z.boolean(),
  showOnSignIn: z.boolean(),
  issuer: z.string().nullable(),
  tenant: z.string().nullable(),
  clientId: z.string().nullable(),
  hasClientSecret: z.boolean(),
  scopes: z.array(z.string()).nullable(),
  baseUrl: z.string().nullable(),
  samlMetadataXml: z.string().nullable(),
  samlEmailAttribute: z.string().nullable(),
  samlNameAttribute: z.string().nullable(),
  emailDomains: z.array(z.string()),
  trustEmail: z.boolean(),
  allowSignUp: z.boolean(),
  defaultRole: z.enum(ROLES),
  roleRules: z.array(z.object({ claim: z.string(), value: z.string(), role: z.enum(ROLES) })),
  syncRoles: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type IdentityProvider = z.infer<typeof identityProviderSchema>

export const identityProviderListSchema = z.object({ identityProviders: z.array(identityProviderSchema) })
export const identityProviderResultSchema = z.object({ identityProvider: identityProviderSchema })

/** What the sign-in and registration pages see: the enabled providers shown there. */
export const signInProviderSchema = z.object({ id: z.string(), name: z.string(), kind: z.enum(IDENTITY_PROVIDER_KINDS) })
export type SignInProvider = z.infer<typeof signInProviderSchema>
export const signInProviderListSchema = z.object({ identityProviders: z.array(signInProviderSchema) })
export const discoverProviderQuerySchema = z.strictObject({ email: emailField })
export const discoveredProviderSchema = z.object({ identityProvider: z.object({ id: z.string(), name: z.string() }).nullable() })
