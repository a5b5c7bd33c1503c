import { z } from 'zod'
import { ROLES } from '../constants'
import { LOOPBACK_HOSTNAMES } from '../loopback'
import { API_SCOPE_NAMES } from '../scopes'
import { parsedUrl } from '../parsed-url'

/**
 * The applications that sign people in with Accounts (OpenID Connect clients, contract section 9),
 * as admins register them: the form's and the request's fields with their messages, and the
 * application as the API shows it (never its secret, which is shown once and kept only hashed).
 */

export const APPLICATION_NAME_MAX = 100
export const APPLICATION_URIS_MAX = 20
/** Long enough for any real callback address; a longer one is refused before it is parsed. */
export const APPLICATION_URI_MAX = 2000
export const APPLICATION_TYPES = ['confidential', 'public', 'service'] as const
export type ApplicationType = (typeof APPLICATION_TYPES)[number]

export const applicationMessages = {
  nameRequired: 'Application name is required',
  nameMax: `Application name must be at most ${APPLICATION_NAME_MAX} characters`,
  nameControl: 'Application name must not contain control characters',
  type: 'Type must be confidential, public or service',
  typeFixed: 'The type of an application cannot be changed',
  redirectUrisMin: 'At least one redirect URI is required',
  redirectUrisMax: `At most ${APPLICATION_URIS_MAX} redirect URIs can be registered`,
  postLogoutRedirectUrisMax: `At most ${APPLICATION_URIS_MAX} post-logout redirect URIs can be registered`,
  uriList: 'Must be a list of addresses',
  role: 'Unknown role',
  roleList: 'Allowed roles must be a list of roles',
  firstParty: 'First-party must be true or false',
  enabled: 'Enabled must be true or false',
  nothingToUpdate: 'Nothing to update',
  notFound: 'Application not found',
  publicHasNoSecret: 'A public application has no client secret',
  scopesRequired: 'Choose at least one scope',
  scope: 'Unknown scope',
  scopesOnlyForService: 'Only a service application has scopes',
  notForService: 'A service application signs no one in: it has no such setting',
  jwks: 'Must be a JSON Web Key Set of public keys',
  jwksOnlyForService: 'Only a service application signs in with a key set',
  jwksHasNoSecret: 'An application that signs in with a key set has no client secret',
  deviceFlow: 'Device sign-in must be true or false',
} as const

/** The messages of one kind of address ("Redirect URI must be an absolute URL"…). */
function uriMessages(label: string) {
  return {
    absolute: `${label} must be an absolute URL`,
    fragment: `${label} must not contain a fragment (#)`,
    scheme: `${label} must use https, or http on localhost, 127.0.0.1 or [::1]`,
    credentials: `${label} must not contain a user name or password`,
  }
}

const URI_LABELS = ['Redirect URI', 'Post-logout redirect URI', 'Back-channel logout URI'] as const

/** Every message of the address fields, for the translations. */
export const applicationUriMessages: string[] = URI_LABELS.flatMap((label) => Object.values(uriMessages(label)))

/**
 * An absolute URL with no fragment, on https, or on http at a loopback host (a developer's machine,
 * a native app's local callback). Kept exactly as typed (only trimmed): the protocol compares
 * redirect URIs character for character.
 */
function uriField(label: (typeof URI_LABELS)[number]) {
  const m = uriMessages(label)
  return z
    .string({ error: m.absolute })
    .max(APPLICATION_URI_MAX, { error: m.absolute, abort: true })
    .trim()
    .superRefine((value, ctx) => {
      const url = /^[^\s\p{Cc}]+$/u.test(value) ? parsedUrl(value) : null
      if (!url || !/^https?:\/\//i.test(value)) {
        ctx.addIssue({ code: 'custom', message: url && url.protocol !== 'http:' && url.protocol !== 'https:' ? m.scheme : m.absolute })
        return
      }
      if (value.includes('#')) ctx.addIssue({ code: 'custom', message: m.fragment })
      if (url.protocol === 'http:' && !LOOPBACK_HOSTNAMES.includes(url.hostname)) ctx.addIssue({ code: 'custom', message: m.scheme })
      if (url.username !== '' || url.password !== '') ctx.addIssue({ code: 'custom', message: m.credentials })
    })
}

/** A list of addresses, each said once (a repeat is dropped), at most 20. */
function uriList(label: (typeof URI_LABELS)[number], maxMessage: string) {
  return z
    .array(uriField(label), { error: applicationMessages.uriList })
    .max(APPLICATION_URIS_MAX, { error: maxMessage, abort: true })
    .transform((uris) => [...new Set(uris)])
}

export const applicationNameField = z
  .string({ error: applicationMessages.nameRequired })
  .max(APPLICATION_NAME_MAX * 2, { error: applicationMessages.nameMax, abort: true })
  .trim()
  .min(1, { error: applicationMessages.nameRequired })
  .refine((value) => Array.from(value).length <= APPLICATION_NAME_MAX, { error: applicationMessages.nameMax })
  .regex(/^[^\p{Cc}]*$/u, { error: applicationMessages.nameControl })

const typeField = z.enum(APPLICATION_TYPES, { error: applicationMessages.type })
const postLogoutRedirectUrisField = uriList('Post-logout redirect URI', applicationMessages.postLogoutRedirectUrisMax)
const backchannelLogoutUriField = uriField('Back-channel logout URI').nullable()
/** Roles that may sign in to the application; empty: every role. */
const allowedRolesField = z
  .array(z.enum(ROLES, { error: applicationMessages.role }), { error: applicationMessages.roleList })
  .max(ROLES.length * 2, { error: applicationMessages.roleList, abort: true })
  .transform((roles) => ROLES.filter((role) => roles.includes(role)))

/** A service application's scopes: a non-empty subset of the admin API's (src/shared/scopes.ts), each once. */
const scopesField = z
  .array(z.enum(API_SCOPE_NAMES as [string, ...string[]], { error: applicationMessages.scope }), { error: applicationMessages.scopesRequired })
  .max(API_SCOPE_NAMES.length * 2, { error: applicationMessages.scope, abort: true })
  .transform((scopes) => API_SCOPE_NAMES.filter((scope) => scopes.includes(scope)))
  .refine((scopes) => scopes.length > 0, { error: applicationMessages.scopesRequired })

/** Members of a JWK that only a private or symmetric key has. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth']
export const JWKS_KEYS_MAX = 10

/**
 * A public key set for `private_key_jwt` (RFC 7517): 1 to 10 RSA, EC or OKP public keys. A private
 * or symmetric key is refused: the application keeps its private key, we keep only the public one.
 * The server also imports each key before it stores the set.
 */
export const jwksField = z
  .object({ keys: z.array(z.record(z.string(), z.unknown()), { error: applicationMessages.jwks }) }, { error: applicationMessages.jwks })
  .refine(
    ({ keys }) =>
      keys.length > 0 &&
      keys.length <= JWKS_KEYS_MAX &&
      keys.every((key) => ['RSA', 'EC', 'OKP'].includes(String(key.kty)) && PRIVATE_JWK_MEMBERS.every((member) => !(member in key))),
    { error: applicationMessages.jwks },
  )

/** The fields a service application does not have (it signs no one in). */
const PERSON_SIGN_IN_FIELDS = ['redirectUris', 'postLogoutRedirectUris', 'backchannelLogoutUri', 'allowedRoles', 'firstParty', 'deviceFlow'] as const

export const createApplicationSchema = z
  .strictObject({
    name: applicationNameField,
    type: typeField,
    redirectUris: uriList('Redirect URI', applicationMessages.redirectUrisMax).optional(),
    postLogoutRedirectUris: postLogoutRedirectUrisField.optional(),
    backchannelLogoutUri: backchannelLogoutUriField.optional(),
    allowedRoles: allowedRolesField.optional(),
    firstParty: z.boolean({ error: applicationMessages.firstParty }).optional(),
    /** Device sign-in (RFC 8628); such an application may have no redirect URIs. */
    deviceFlow: z.boolean({ error: applicationMessages.deviceFlow }).optional(),
    scopes: scopesField.optional(),
    jwks: jwksField.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.type === 'service') {
      for (const field of PERSON_SIGN_IN_FIELDS) {
        if (value[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: applicationMessages.notForService })
      }
      if (value.scopes === undefined) ctx.addIssue({ code: 'custom', path: ['scopes'], message: applicationMessages.scopesRequired })
      return
    }
    if ((!value.redirectUris || value.redirectUris.length === 0) && value.deviceFlow !== true) {
      ctx.addIssue({ code: 'custom', path: ['redirectUris'], message: applicationMessages.redirectUrisMin })
    }
    if (value.scopes !== undefined) ctx.addIssue({ code: 'custom', path: ['scopes'], message: applicationMessages.scopesOnlyForService })
    if (value.jwks !== undefined) ctx.addIssue({ code: 'custom', path: ['jwks'], message: applicationMessages.jwksOnlyForService })
  })
export type CreateApplicationInput = z.input<typeof createApplicationSchema>
export type NewApplication = z.output<typeof createApplicationSchema>

/**
 * An edit: any of the fields, and `enabled`. `type` may be sent, but only with the type the
 * application already has (the server says so at the field otherwise). A service application's
 * scopes may change (a removed scope's calls are refused from the next request); the server
 * refuses the person sign-in fields on a service application and scopes on the others.
 */
export const updateApplicationSchema = z
  .strictObject({
    name: applicationNameField.optional(),
    type: typeField.optional(),
    /** Empty only with `deviceFlow: true` in the same edit (the server checks the result too). */
    redirectUris: uriList('Redirect URI', applicationMessages.redirectUrisMax).optional(),
    postLogoutRedirectUris: postLogoutRedirectUrisField.optional(),
    backchannelLogoutUri: backchannelLogoutUriField.optional(),
    allowedRoles: allowedRolesField.optional(),
    firstParty: z.boolean({ error: applicationMessages.firstParty }).optional(),
    deviceFlow: z.boolean({ error: applicationMessages.deviceFlow }).optional(),
    enabled: z.boolean({ error: applicationMessages.enabled }).optional(),
    scopes: scopesField.optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), { error: applicationMessages.nothingToUpdate })
  // No redirect URIs left: only for an application that signs people in on their devices, said in the same edit.
  .refine((value) => value.redirectUris === undefined || value.redirectUris.length > 0 || value.deviceFlow === true, {
    error: applicationMessages.redirectUrisMin,
    path: ['redirectUris'],
  })
export type UpdateApplicationInput = z.input<typeof updateApplicationSchema>
export type ApplicationUpdate = z.output<typeof updateApplicationSchema>

export const PERSON_SIGN_IN_APPLICATION_FIELDS = PERSON_SIGN_IN_FIELDS

export const applicationParamsSchema = z.object({ id: z.string() })

/** An application as the API shows it; `id` is its `client_id`. */
export const applicationSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(APPLICATION_TYPES),
  redirectUris: z.array(z.string()),
  postLogoutRedirectUris: z.array(z.string()),
  backchannelLogoutUri: z.string().nullable(),
  allowedRoles: z.array(z.enum(ROLES)),
  firstParty: z.boolean(),
  /** Device sign-in (RFC 8628) for command-line tools; false for a service application. */
  deviceFlow: z.boolean(),
  enabled: z.boolean(),
  /** A service application's admin API scopes; empty for the others. */
  scopes: z.array(z.string()),
  /** A service application that signs in with `private_key_jwt`: its public key set; else null. */
  jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Application = z.infer<typeof applicationSchema>

export const applicationListSchema = z.object({ applications: z.array(applicationSchema) })
export const applicationResultSchema = z.object({ application: applicationSchema })
/** A new application: its secret (confidential, and service without a key set) is in this answer and never again. */
export const createdApplicationSchema = z.object({ application: applicationSchema, clientSecret: z.string().optional() })
export type CreatedApplication = z.infer<typeof createdApplicationSchema>
export const clientSecretSchema = z.object({ clientSecret: z.string() })
