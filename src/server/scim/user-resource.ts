import { emailField, nameField, phoneField } from '~shared/schemas/fields'
import type { Role, Status } from '~shared/constants'
import { invalidSyntax, invalidValue } from './errors'
import { USER_SCHEMA } from './schemas'

/**
 * A User resource both ways (contract section 13): what a directory sends, read into the account's
 * fields with the product's own field rules, and an account shown as a User.
 *
 * In: `userName` kept as given; the address is the `primary` e-mail, else the first `work` one,
 * else `userName`, which must then be one; the name is `givenName familyName`, else
 * `name.formatted`, else `displayName`, else the address's local part; the phone is the first
 * phone number; `active` true or false (also the strings "True" and "False" Entra ID sends).
 * A `password` is ignored (never stored); so are the read-only and unknown attributes.
 */

export interface UserInput {
  userName: string
  externalId: string | null
  email: string
  name: string
  /** As given, kept to answer with them while they still make up the account's name. */
  givenName: string | null
  familyName: string | null
  phone: string | null
  /** Left out: unchanged by a PUT, true for a POST. */
  active?: boolean
}

/** The account's columns a User is made of. */
export interface ScimUserRecord {
  id: string
  name: string
  email: string
  phone: string | null
  role: Role
  status: Status
  created_at: Date
  updated_at: Date
  scim_user_name: string | null
  scim_external_id: string | null
  scim_given_name: string | null
  scim_family_name: string | null
}

const USER_NAME_MAX = 254
const EXTERNAL_ID_MAX = 254
const NAME_PART_MAX = 100

type Json = Record<string, unknown>

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A key of the object, found without regard to case (attribute names are case-insensitive). */
export function field(object: Json, name: string): unknown {
  const lower = name.toLowerCase()
  for (const key of Object.keys(object)) if (key.toLowerCase() === lower) return object[key]
  return undefined
}

/** true and false, and the strings "True" and "False" in any case (Entra ID). */
export function readBoolean(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true'
  throw invalidValue(`${attribute} must be true or false`)
}

function optionalString(value: unknown, attribute: string, max: number): string | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') throw invalidValue(`${attribute} must be a string`)
  if (value.length > max) throw invalidValue(`${attribute} must be at most ${max} characters`)
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) throw invalidValue(`${attribute} must not contain control characters`)
  return value.trim() === '' ? null : value
}

function multiValued(value: unknown, attribute: string): Json[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw invalidValue(`${attribute} must be a list`)
  if (value.length > 100) throw invalidValue(`${attribute} holds at most 100 values`)
  return value.map((element) => {
    if (!isObject(element)) throw invalidValue(`${attribute} must be a list of objects`)
    return element
  })
}

function checkedAddress(value: unknown, attribute: string): string {
  const parsed = emailField.safeParse(value)
  if (!parsed.success) throw invalidValue(`${attribute} is not a valid e-mail address`)
  return parsed.data
}

function chooseAddress(body: Json, userName: string): string {
  const emails = multiValued(field(body, 'emails'), 'emails')
  const primary = emails.find((email) => {
    const flag = field(email, 'primary')
    return flag === true || (typeof flag === 'string' && flag.toLowerCase() === 'true')
  })
  const work = emails.find((email) => String(field(email, 'type') ?? '').toLowerCase() === 'work')
  const chosen = primary ?? work
  if (chosen) return checkedAddress(field(chosen, 'value'), 'emails.value')
  return checkedAddress(userName, 'userName (the address, when no primary or work e-mail is given)')
}

function chooseName(body: Json, email: string) {
  const name = field(body, 'name')
  if (name !== undefined && name !== null && !isObject(name)) throw invalidValue('name must be an object')
  const givenName = name ? optionalString(field(name, 'givenName'), 'name.givenName', NAME_PART_MAX) : null
  const familyName = name ? optionalString(field(name, 'familyName'), 'name.familyName', NAME_PART_MAX) : null
  const formatted = name ? optionalString(field(name, 'formatted'), 'name.formatted', NAME_PART_MAX) : null
  const displayName = optionalString(field(body, 'displayName'), 'displayName', NAME_PART_MAX)
  const composed = [givenName, familyName].filter((part) => part !== null).join(' ')
  const chosen = composed || formatted || displayName || email.split('@')[0]!
  const parsed = nameField.safeParse(chosen)
  if (!parsed.success) throw invalidValue(`The name ${JSON.stringify(chosen)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
  return { name: parsed.data, givenName: composed ? givenName : null, familyName: composed ? familyName : null }
}

function choosePhone(body: Json): string | null {
  const first = multiValued(field(body, 'phoneNumbers'), 'phoneNumbers')[0]
  if (!first) return null
  const value = field(first, 'value')
  if (value === undefined || value === null) return null
  const parsed = phoneField.safeParse(value)
  if (!parsed.success) throw invalidValue(`phoneNumbers.value: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
  return parsed.data ?? null
}

export function readUserResource(body: unknown): UserInput {
  if (!isObject(body)) throw invalidSyntax('The body must be a JSON object: a User resource')
  const rawUserName = field(body, 'userName')
  if (typeof rawUserName !== 'string' || rawUserName.trim() === '') throw invalidValue('userName is required')
  const userName = optionalString(rawUserName, 'userName', USER_NAME_MAX)!
  const externalId = optionalString(field(body, 'externalId'), 'externalId', EXTERNAL_ID_MAX)
  const email = chooseAddress(body, userName)
  const activeValue = field(body, 'active')
  return {
    userName,
    externalId,
    email,
    ...chooseName(body, email),
    phone: choosePhone(body),
    ...(activeValue === undefined || activeValue === null ? {} : { active: readBoolean(activeValue, 'active') }),
  }
}

/** The given and family names, while together they are still the account's name. */
function nameParts(row: ScimUserRecord) {
  if (row.scim_given_name === null && row.scim_family_name === null) return {}
  const composed = [row.scim_given_name, row.scim_family_name].filter((part) => part !== null).join(' ')
  if (composed !== row.name) return {}
  return {
    ...(row.scim_given_name !== null ? { givenName: row.scim_given_name } : {}),
    ...(row.scim_family_name !== null ? { familyName: row.scim_family_name } : {}),
  }
}

export function toScimUser(row: ScimUserRecord, baseUrl: string) {
  return {
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.scim_external_id !== null ? { externalId: row.scim_external_id } : {}),
    userName: row.scim_user_name ?? row.email,
    name: { formatted: row.name, ...nameParts(row) },
    displayName: row.name,
    active: row.status === 'ACTIVE',
    emails: [{ value: row.email, type: 'work', primary: true }],
    ...(row.phone !== null ? { phoneNumbers: [{ value: row.phone, type: 'work' }] } : {}),
    roles: [{ value: row.role, primary: true }],
    groups: [{ value: row.role, display: row.role, $ref: `${baseUrl}/Groups/${row.role}` }],
    meta: {
      resourceType: 'User',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${baseUrl}/Users/${row.id}`,
    },
  }
}

export type ScimUser = ReturnType<typeof toScimUser>

/** The writable part of the account as a User, which a PATCH changes and `readUserResource` reads back. */
export function patchableUser(row: ScimUserRecord): Json {
  const parts = nameParts(row)
  return {
    userName: row.scim_user_name ?? row.email,
    ...(row.scim_external_id !== null ? { externalId: row.scim_external_id } : {}),
    ...(Object.keys(parts).length > 0 ? { name: parts } : {}),
    displayName: row.name,
    active: row.status === 'ACTIVE',
    emails: [{ value: row.email, type: 'work', primary: true }],
    phoneNumbers: row.phone !== null ? [{ value: row.phone, type: 'work' }] : [],
  }
}
