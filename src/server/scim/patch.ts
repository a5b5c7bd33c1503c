import { invalidPath, invalidSyntax, invalidValue, mutability, noTarget } from './errors'
import { type AttributePath, type Filter, parseAttributeName, parseFilter } from './filter'
import { CORE_USER_ATTRIBUTES, ENTERPRISE_USER_ATTRIBUTES, USER_SCHEMA } from './schemas'
import { field, isObject, readBoolean } from './user-resource'

/**
 * PATCH (RFC 7644 section 3.5.2) as Entra ID and Okta really send it, normalised into a plain list
 * of operations:
 *
 * - `op` in any case (`Replace`, `Add`, `remove`);
 * - `active` as the strings "True" and "False" (read where the User is read: user-resource.ts);
 * - `replace` or `add` without `path`, the value an object whose keys are paths themselves
 *   (`"name.givenName"`, `"emails[type eq \"work\"].value"`, an extension's URN-prefixed names);
 * - filtered paths (`emails[type eq "work"].value`) and removal by `members[value eq "…"]`;
 * - a one-element list as the value of a single-valued attribute.
 *
 * For a User the operations are then applied to the writable part of the account as a User
 * (`patchableUser`), and the result is read back like a PUT's body: the same rules for both.
 * Attributes of other schemas (the enterprise extension's, a directory's own) and known User
 * attributes the service does not keep are accepted and ignored; a name in no schema is an
 * `invalidPath`, a read-only attribute a `mutability` error.
 */

export type PatchVerb = 'add' | 'replace' | 'remove'

export interface PatchOperation {
  op: PatchVerb
  /** The path parsed; absent: the value is an object of attributes. */
  path?: AttributePath
  value?: unknown
}

const MAX_OPERATIONS = 1000

/** The body's operations, with `op` folded to lower case and each `path` parsed. */
export function readPatchBody(body: unknown): PatchOperation[] {
  if (!isObject(body)) throw invalidSyntax('The body must be a PatchOp object')
  const operations = field(body, 'Operations')
  if (!Array.isArray(operations) || operations.length === 0) throw invalidSyntax('Operations must be a non-empty list')
  if (operations.length > MAX_OPERATIONS) throw invalidSyntax(`At most ${MAX_OPERATIONS} operations`)
  return operations.map((operation, index) => {
    if (!isObject(operation)) throw invalidSyntax(`Operations[${index}] must be an object`)
    const op = field(operation, 'op')
    const verb = typeof op === 'string' ? op.toLowerCase() : undefined
    if (verb !== 'add' && verb !== 'replace' && verb !== 'remove') throw invalidSyntax(`Operations[${index}].op must be add, replace or remove`)
    const rawPath = field(operation, 'path')
    const value = field(operation, 'value')
    if (rawPath !== undefined && rawPath !== null && typeof rawPath !== 'string') throw invalidPath(`Operations[${index}].path must be a string`)
    const path = typeof rawPath === 'string' && rawPath.trim() !== '' ? parsePath(rawPath) : undefined
    if (!path && verb === 'remove') throw noTarget(`Operations[${index}]: remove needs a path`)
    if (!path && !isObject(value)) throw invalidValue(`Operations[${index}]: without a path, the value must be an object of attributes`)
    if (verb !== 'remove' && value === undefined) throw invalidValue(`Operations[${index}]: ${verb} needs a value`)
    return { op: verb, ...(path ? { path } : {}), ...(value !== undefined ? { value } : {}) }
  })
}

/** A PATCH path: `attr`, `attr.sub`, `urn:…:attr`, `attr[filter]` or `attr[filter].sub`. */
export function parsePath(text: string): AttributePath {
  try {
    const bracket = text.indexOf('[')
    if (bracket === -1) return parseAttributeName(text.trim())
    const close = text.lastIndexOf(']')
    if (close < bracket) throw invalidPath(`Invalid path ${JSON.stringify(text)}`)
    const path = parseAttributeName(text.slice(0, bracket).trim())
    if (path.sub !== undefined) throw invalidPath(`Invalid path ${JSON.stringify(text)}`)
    const rest = text.slice(close + 1).trim()
    if (rest !== '' && !/^\.[A-Za-z][A-Za-z0-9_$-]*$/.test(rest)) throw invalidPath(`Invalid path ${JSON.stringify(text)}`)
    return { ...path, valueFilter: parseFilter(text.slice(bracket + 1, close)), ...(rest ? { sub: rest.slice(1) } : {}) }
  } catch (error) {
    if ((error as { scimType?: string }).scimType === 'invalidFilter') throw invalidPath(`Invalid path ${JSON.stringify(text)}: ${(error as Error).message}`)
    throw error
  }
}

/** Whether an element of a multi-valued attribute matches the filter in its brackets. */
export function elementMatches(element: Record<string, unknown>, filter: Filter): boolean {
  switch (filter.op) {
    case 'and':
      return elementMatches(element, filter.left) && elementMatches(element, filter.right)
    case 'or':
      return elementMatches(element, filter.left) || elementMatches(element, filter.right)
    case 'not':
      return !elementMatches(element, filter.filter)
    case 'has':
      return false
    case 'pr': {
      const value = field(element, filter.path.name)
      return value !== undefined && value !== null && value !== ''
    }
    default: {
      const actual = field(element, filter.path.name)
      const expected = filter.value
      if (typeof actual === 'boolean' || typeof expected === 'boolean') {
        const same = String(actual).toLowerCase() === String(expected).toLowerCase()
        return filter.op === 'eq' ? same : filter.op === 'ne' ? !same : false
      }
      if (actual === undefined || actual === null) return filter.op === 'ne'
      const a = String(actual).toLowerCase()
      const b = String(expected).toLowerCase()
      if (filter.op === 'eq') return a === b
      if (filter.op === 'ne') return a !== b
      if (filter.op === 'co') return a.includes(b)
      if (filter.op === 'sw') return a.startsWith(b)
      if (filter.op === 'ew') return a.endsWith(b)
      return false
    }
  }
}

type Json = Record<string, unknown>

const READ_ONLY = new Set(['id', 'meta', 'schemas', 'roles', 'groups'])

/** Where a User path points: an attribute the service keeps (lower case), or nothing to do. */
function userTarget(path: AttributePath): { attribute: string; sub?: string } | 'ignored' {
  if (path.schema !== undefined && path.schema.toLowerCase() !== USER_SCHEMA.toLowerCase()) {
    // Another schema's attribute (the enterprise extension, a directory's own): accepted and ignored.
    if (path.schema.toLowerCase().startsWith('urn:ietf:params:scim:schemas:extension:enterprise:2.0:user')) {
      if (!(path.name.toLowerCase() in ENTERPRISE_USER_ATTRIBUTES)) throw invalidPath(`Unknown attribute ${path.name} of ${path.schema}`)
    }
    return 'ignored'
  }
  const attribute = path.name.toLowerCase()
  const subs = CORE_USER_ATTRIBUTES[attribute]
  if (!subs) throw invalidPath(`Unknown attribute ${JSON.stringify(path.name)}`)
  const sub = path.sub?.toLowerCase()
  if (sub !== undefined && !subs.includes(sub)) throw invalidPath(`Unknown sub-attribute ${JSON.stringify(`${path.name}.${path.sub}`)}`)
  if (path.valueFilter && subs.length === 0) throw invalidPath(`${path.name} is not multi-valued`)
  if (READ_ONLY.has(attribute)) throw mutability(`${path.name} is read-only`)
  return { attribute, ...(sub !== undefined ? { sub } : {}) }
}

const CANONICAL: Record<string, string> = {
  username: 'userName',
  externalid: 'externalId',
  displayname: 'displayName',
  phonenumbers: 'phoneNumbers',
  givenname: 'givenName',
  familyname: 'familyName',
}
const canonical = (name: string) => CANONICAL[name] ?? name
const MULTI_VALUED = new Set(['emails', 'phonenumbers', 'ims', 'photos', 'addresses', 'entitlements', 'x509certificates'])

/** A one-element list for a single-valued attribute (Entra ID sends some that way). */
function single(value: unknown): unknown {
  return Array.isArray(value) && value.length === 1 && !isObject(value[0]) ? value[0] : value
}

function asElements(value: unknown, name: string): Json[] {
  const list = Array.isArray(value) ? value : [value]
  return list.map((element) => {
    if (!isObject(element)) throw invalidValue(`${name} takes objects with a value`)
    return { ...element }
  })
}

/** The type a value filter names (`type eq "work"`), for the element an `add` creates. */
function typeNamedBy(filter: Filter): Json {
  if (filter.op === 'eq' && filter.path.name.toLowerCase() === 'type' && typeof filter.value === 'string') return { type: filter.value }
  if (filter.op === 'and') return { ...typeNamedBy(filter.left), ...typeNamedBy(filter.right) }
  return {}
}

function applyToUser(user: Json, op: PatchVerb, path: AttributePath, value: unknown): void {
  const target = userTarget(path)
  if (target === 'ignored') return
  const key = canonical(target.attribute)
  if (target.attribute === 'active' && op !== 'remove') {
    user.active = readBoolean(single(value), 'active')
    return
  }
  if (MULTI_VALUED.has(target.attribute)) {
    const elements = Array.isArray(user[key]) ? (user[key] as Json[]) : []
    if (path.valueFilter) {
      const matching = elements.filter((element) => elementMatches(element, path.valueFilter!))
      if (op === 'remove') {
        user[key] = target.sub
          ? elements.map((element) =>
              matching.includes(element) ? Object.fromEntries(Object.entries(element).filter(([k]) => k.toLowerCase() !== target.sub)) : element,
            )
          : elements.filter((element) => !matching.includes(element))
        return
      }
      if (matching.length === 0) {
        // Entra ID replaces `emails[type eq "work"].value` on accounts that have no such element yet.
        const created = target.sub
          ? { ...typeNamedBy(path.valueFilter), [target.sub]: single(value) }
          : { ...typeNamedBy(path.valueFilter), ...asElements(value, key)[0] }
        user[key] = [...elements, created]
        return
      }
      for (const element of matching) {
        if (target.sub) element[target.sub] = single(value)
        else Object.assign(element, asElements(value, key)[0])
      }
      return
    }
    if (target.sub) throw invalidPath(`${path.name}.${path.sub} needs a filter: ${path.name}[type eq "work"].${path.sub}`)
    if (op === 'remove') {
      // `remove` with a value removes those values (RFC 7644 leaves it open; Entra ID sends it).
      if (value === undefined) delete user[key]
      else {
        const gone = asElements(value, key).map((element) => String(field(element, 'value') ?? '').toLowerCase())
        user[key] = elements.filter((element) => !gone.includes(String(field(element, 'value') ?? '').toLowerCase()))
      }
      return
    }
    const added = asElements(value, key)
    // A new primary value takes the flag from the others.
    if (added.some((element) => field(element, 'primary') === true)) for (const element of elements) delete element.primary
    user[key] = op === 'add' ? [...elements, ...added] : added
    return
  }
  if (target.sub) {
    const parent = isObject(user[key]) ? (user[key] as Json) : {}
    const subKey = canonical(target.sub)
    if (op === 'remove') delete parent[subKey]
    else parent[subKey] = single(value)
    user[key] = parent
    return
  }
  if (op === 'remove') {
    delete user[key]
    return
  }
  if (target.attribute === 'name') {
    if (!isObject(value)) throw invalidValue('name takes an object')
    const merged: Json = op === 'add' && isObject(user.name) ? { ...(user.name as Json) } : {}
    for (const [subName, subValue] of Object.entries(value)) merged[canonical(subName.toLowerCase())] = subValue
    user.name = merged
    return
  }
  user[key] = single(value)
}

/** The User after the operations: `user` is the account's writable part; read it back with `readUserResource`. */
export function applyUserPatch(user: Json, operations: PatchOperation[]): Json {
  const result = structuredClone(user)
  for (const operation of operations) {
    if (operation.path) {
      applyToUser(result, operation.op, operation.path, operation.value)
      continue
    }
    // No path: each key of the value is a path of its own (Entra ID's "name.givenName").
    for (const [key, value] of Object.entries(operation.value as Json)) {
      if (key.toLowerCase() === 'schemas') continue
      // An extension's attributes under its URN (`"urn:…:enterprise:2.0:User": { … }`) are ignored
      // in userTarget, as another schema's.
      applyToUser(result, operation.op, parsePath(key), value)
    }
  }
  return result
}
