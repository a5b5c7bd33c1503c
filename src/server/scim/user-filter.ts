import { invalidFilter } from './errors'
import { type AttributePath, type Filter, printPath } from './filter'
import { USER_SCHEMA } from './schemas'

/**
 * A parsed filter, resolved against the User attributes the service filters on (contract section
 * 13): `userName`, `externalId`, `emails.value` (with or without `[type eq "work"]`),
 * `displayName`, `active`, `id`, with `eq`, `ne`, `co`, `sw`, `pr`, `and`, `or` (and `not`).
 * Anything else is an `invalidFilter` error here, before a query is built. An account has one
 * address, its primary and work one, so a value filter on `emails` becomes a condition on it.
 */

export type UserFilterAttribute = 'userName' | 'externalId' | 'email' | 'displayName' | 'active' | 'id'
export type UserFilterOp = 'eq' | 'ne' | 'co' | 'sw'

export type UserFilter =
  | { op: 'and' | 'or'; left: UserFilter; right: UserFilter }
  | { op: 'not'; filter: UserFilter }
  | { op: 'pr'; attribute: UserFilterAttribute }
  | { op: UserFilterOp; attribute: 'userName' | 'externalId' | 'email' | 'displayName'; value: string }
  | { op: 'eq' | 'ne'; attribute: 'id'; value: string }
  | { op: 'eq' | 'ne'; attribute: 'active'; value: boolean }
  | { op: 'const'; value: boolean }

const STRING_ATTRIBUTES = {
  username: 'userName',
  externalid: 'externalId',
  displayname: 'displayName',
} as const

export function resolveUserFilter(filter: Filter): UserFilter {
  switch (filter.op) {
    case 'and':
    case 'or':
      return { op: filter.op, left: resolveUserFilter(filter.left), right: resolveUserFilter(filter.right) }
    case 'not':
      return { op: 'not', filter: resolveUserFilter(filter.filter) }
    case 'has': {
      checkSchema(filter.path)
      if (filter.path.name.toLowerCase() !== 'emails') throw unsupported(filter.path)
      return resolveEmailElement(filter.path.valueFilter!)
    }
    default: {
      const path = filter.path
      checkSchema(path)
      const attribute = attributeOf(path)
      const condition: UserFilter = filter.op === 'pr' ? { op: 'pr', attribute } : compare(attribute, filter.op, filter.value, path)
      // `emails[type eq "work"].value eq "…"`: the element filter, and the condition on its value.
      return path.valueFilter ? { op: 'and', left: resolveEmailElement(path.valueFilter), right: condition } : condition
    }
  }
}

function checkSchema(path: AttributePath): void {
  if (path.schema !== undefined && path.schema.toLowerCase() !== USER_SCHEMA.toLowerCase()) throw unsupported(path)
}

function attributeOf(path: AttributePath): UserFilterAttribute {
  const name = path.name.toLowerCase()
  const sub = path.sub?.toLowerCase()
  if (name === 'emails') {
    if (sub !== undefined && sub !== 'value') throw unsupported(path)
    return 'email'
  }
  if (sub !== undefined || path.valueFilter) throw unsupported(path)
  if (name in STRING_ATTRIBUTES) return STRING_ATTRIBUTES[name as keyof typeof STRING_ATTRIBUTES]
  if (name === 'active' || name === 'id') return name
  throw unsupported(path)
}

function compare(attribute: UserFilterAttribute, op: string, value: unknown, path: AttributePath): UserFilter {
  if (attribute === 'active') {
    if ((op === 'eq' || op === 'ne') && typeof value === 'boolean') return { op, attribute, value }
    throw invalidFilter(`${printPath(path)} takes eq or ne with true or false`)
  }
  if (attribute === 'id') {
    if ((op === 'eq' || op === 'ne') && typeof value === 'string') return { op, attribute, value }
    throw invalidFilter(`${printPath(path)} takes eq or ne with a "string"`)
  }
  if ((op === 'eq' || op === 'ne' || op === 'co' || op === 'sw') && typeof value === 'string') return { op, attribute, value }
  throw invalidFilter(`${printPath(path)} takes eq, ne, co, sw with a "string", or pr`)
}

/** The filter inside `emails[…]`, on the account's one address: its `value`, `type` "work", `primary` true. */
function resolveEmailElement(filter: Filter): UserFilter {
  switch (filter.op) {
    case 'and':
    case 'or':
      return { op: filter.op, left: resolveEmailElement(filter.left), right: resolveEmailElement(filter.right) }
    case 'not':
      return { op: 'not', filter: resolveEmailElement(filter.filter) }
    case 'has':
      throw unsupported(filter.path)
    default: {
      const path = filter.path
      const name = path.name.toLowerCase()
      if (path.schema !== undefined || path.sub !== undefined) throw unsupported(path)
      if (name === 'value') return filter.op === 'pr' ? { op: 'pr', attribute: 'email' } : compare('email', filter.op, filter.value, path)
      if (name === 'type') {
        if (filter.op === 'pr') return { op: 'const', value: true }
        if ((filter.op === 'eq' || filter.op === 'ne') && typeof filter.value === 'string') {
          const work = filter.value.toLowerCase() === 'work'
          return { op: 'const', value: filter.op === 'eq' ? work : !work }
        }
      }
      if (name === 'primary') {
        if (filter.op === 'pr') return { op: 'const', value: true }
        if ((filter.op === 'eq' || filter.op === 'ne') && typeof filter.value === 'boolean') {
          return { op: 'const', value: filter.op === 'eq' ? filter.value : !filter.value }
        }
      }
      throw invalidFilter(`Unsupported filter on emails: ${printPath(path)} ${filter.op}`)
    }
  }
}

function unsupported(path: AttributePath) {
  return invalidFilter(
    `Filtering on ${printPath(path)} is not supported: userName, externalId, emails.value, emails[type eq "work"].value, displayName, active and id are`,
  )
}
