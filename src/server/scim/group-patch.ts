import { invalidPath, invalidValue, mutability, scimForbidden } from './errors'
import type { Filter } from './filter'
import type { PatchOperation } from './patch'
import { GROUP_SCHEMA } from './schemas'
import { field, isObject } from './user-resource'

/**
 * A Group PATCH, normalised into the membership changes it asks for. Groups are the four roles:
 * adding a member gives that role, removing one gives CLIENT (use-cases/scim/). What directories
 * send for it:
 *
 * - `add` of `members` with a list of `{ value }` (Entra ID, Okta);
 * - `remove` of `members[value eq "…"]` (Entra ID, Okta), or of `members` with a list of
 *   `{ value }` (Entra ID);
 * - `replace` of `members`: the members become exactly those;
 * - Okta's `replace` without a path of `{ id, displayName }`, which says the name it already has.
 *
 * Renaming a group is refused (403): the four names are the roles'. `externalId` is accepted and
 * ignored (a directory may keep its own id for a group it maps to a role).
 */

export interface MembershipChange {
  add: string[]
  remove: string[]
  /** `replace` of `members`: everyone else leaves. */
  replaceWith?: string[]
}

const MAX_MEMBERS_PER_CALL = 10_000

function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value]
  if (list.length > MAX_MEMBERS_PER_CALL) throw invalidValue(`At most ${MAX_MEMBERS_PER_CALL} members in one call`)
  return list.map((member) => {
    const id = isObject(member) ? field(member, 'value') : undefined
    if (typeof id !== 'string' || id === '') throw invalidValue('members takes a list of { "value": "<user id>" }')
    return id
  })
}

/** `members[value eq "…"]` (or several joined by `or`): the ids it names. */
function idsNamedBy(filter: Filter): string[] {
  if (filter.op === 'or') return [...idsNamedBy(filter.left), ...idsNamedBy(filter.right)]
  if (filter.op === 'eq' && filter.path.name.toLowerCase() === 'value' && typeof filter.value === 'string') return [filter.value]
  throw invalidPath('Members are named by members[value eq "<user id>"]')
}

function checkName(value: unknown, groupName: string): void {
  if (typeof value !== 'string' || value.toUpperCase() !== groupName) throw scimForbidden('Groups are the four roles: they cannot be renamed')
}

export function readGroupPatch(operations: PatchOperation[], groupName: string): MembershipChange {
  const change: MembershipChange = { add: [], remove: [] }
  const apply = (op: PatchOperation['op'], attribute: string, filter: Filter | undefined, sub: string | undefined, value: unknown) => {
    if (attribute === 'displayname') {
      if (op === 'remove') throw scimForbidden('Groups are the four roles: they cannot be renamed')
      return checkName(value, groupName)
    }
    if (attribute === 'externalid') return
    if (attribute === 'id' || attribute === 'meta') {
      if (attribute === 'id' && value === groupName) return
      throw mutability(`${attribute} is read-only`)
    }
    if (attribute === 'schemas') return
    if (attribute !== 'members') throw invalidPath(`Unknown attribute ${JSON.stringify(attribute)} of a Group`)
    if (sub !== undefined) throw invalidPath('Members are changed whole: members, or members[value eq "<user id>"]')
    if (op === 'add') {
      change.add.push(...memberIds(value))
    } else if (op === 'remove') {
      if (filter) change.remove.push(...idsNamedBy(filter))
      else if (value !== undefined) change.remove.push(...memberIds(value))
      else change.replaceWith = []
    } else {
      if (filter) throw invalidPath('replace takes members whole')
      change.replaceWith = memberIds(value)
      change.add = []
      change.remove = []
    }
  }
  for (const operation of operations) {
    if (operation.path) {
      const { schema, name, valueFilter, sub } = operation.path
      if (schema !== undefined && schema.toLowerCase() !== GROUP_SCHEMA.toLowerCase()) continue
      apply(operation.op, name.toLowerCase(), valueFilter, sub, operation.value)
    } else {
      for (const [key, value] of Object.entries(operation.value as Record<string, unknown>)) apply(operation.op, key.toLowerCase(), undefined, undefined, value)
    }
  }
  return change
}
