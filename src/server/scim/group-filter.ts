import type { Role } from '~shared/constants'
import { invalidFilter } from './errors'
import { type AttributePath, type Filter, printPath } from './filter'
import { GROUP_SCHEMA } from './schemas'

/**
 * Filters on the four Groups, which are the roles: `displayName` and `id` (the role's name),
 * `externalId` (never set), and membership, `members[value eq "<user id>"]` or
 * `members.value eq "<user id>"`, which Entra ID asks to check one person's groups. They are
 * matched in memory against the four groups; the roles of the accounts a filter names are read
 * first, in one query.
 */

function checkSchema(path: AttributePath): void {
  if (path.schema !== undefined && path.schema.toLowerCase() !== GROUP_SCHEMA.toLowerCase()) throw unsupported(path)
}

function unsupported(path: AttributePath) {
  return invalidFilter(`Filtering on ${printPath(path)} is not supported: displayName, id, externalId and members.value are`)
}

/** The user ids a filter asks about, to read their roles before matching. */
export function memberIdsIn(filter: Filter): string[] {
  switch (filter.op) {
    case 'and':
    case 'or':
      return [...memberIdsIn(filter.left), ...memberIdsIn(filter.right)]
    case 'not':
      return memberIdsIn(filter.filter)
    case 'has':
      return filter.path.valueFilter ? memberIdsIn(filter.path.valueFilter) : []
    default:
      return typeof (filter as { value?: unknown }).value === 'string' && filter.op !== 'pr' ? [filter.value as string] : []
  }
}

function compareText(op: string, actual: string | undefined, expected: unknown, path: AttributePath): boolean {
  if (typeof expected !== 'string') throw invalidFilter(`${printPath(path)} takes a "string"`)
  if (actual === undefined) return op === 'ne'
  const a = actual.toLowerCase()
  const b = expected.toLowerCase()
  if (op === 'eq') return a === b
  if (op === 'ne') return a !== b
  if (op === 'co') return a.includes(b)
  if (op === 'sw') return a.startsWith(b)
  throw invalidFilter(`${printPath(path)} takes eq, ne, co, sw or pr`)
}

/** Whether the group of `role` matches; `roleOf` holds the roles of the accounts the filter names. */
export function groupMatches(filter: Filter, role: Role, roleOf: Map<string, Role>): boolean {
  switch (filter.op) {
    case 'and':
      return groupMatches(filter.left, role, roleOf) && groupMatches(filter.right, role, roleOf)
    case 'or':
      return groupMatches(filter.left, role, roleOf) || groupMatches(filter.right, role, roleOf)
    case 'not':
      return !groupMatches(filter.filter, role, roleOf)
    case 'has':
      checkSchema(filter.path)
      if (filter.path.name.toLowerCase() !== 'members') throw unsupported(filter.path)
      return memberMatches(filter.path.valueFilter!, role, roleOf)
  }
  const path = filter.path
  checkSchema(path)
  const name = path.name.toLowerCase()
  if (name === 'members') {
    if (path.sub !== undefined && path.sub.toLowerCase() !== 'value') throw unsupported(path)
    const member: Filter = filter.op === 'pr' ? { op: 'pr', path: { name: 'value' } } : { op: filter.op, path: { name: 'value' }, value: filter.value }
    const withElement = path.valueFilter ? { op: 'and' as const, left: path.valueFilter, right: member } : member
    return memberMatches(withElement, role, roleOf)
  }
  if (path.sub !== undefined || path.valueFilter) throw unsupported(path)
  if (name === 'displayname' || name === 'id') return filter.op === 'pr' || compareText(filter.op, role, filter.value, path)
  if (name === 'externalid') return filter.op === 'pr' ? false : compareText(filter.op, undefined, filter.value, path)
  throw unsupported(path)
}

/** Some member of the group matches the filter on a member (`value eq "<user id>"`). */
function memberMatches(filter: Filter, role: Role, roleOf: Map<string, Role>): boolean {
  switch (filter.op) {
    case 'and':
      return memberMatches(filter.left, role, roleOf) && memberMatches(filter.right, role, roleOf)
    case 'or':
      return memberMatches(filter.left, role, roleOf) || memberMatches(filter.right, role, roleOf)
    case 'pr':
      return true
    case 'eq':
      if (filter.path.name.toLowerCase() === 'value' && typeof filter.value === 'string') return roleOf.get(filter.value) === role
  }
  throw invalidFilter('Members are filtered by members[value eq "<user id>"]')
}
