import { ROLES, type Role } from '~shared/constants'
import type { AppContext } from '~server/context'
import { listRoleMembers, rolesOf } from '~server/data/scim/scim-groups'
import { type Projection, project, projectionWants } from '~server/scim/attributes'
import { ScimError, scimNotFound } from '~server/scim/errors'
import { parseFilter } from '~server/scim/filter'
import { groupMatches, memberIdsIn } from '~server/scim/group-filter'
import { listResponse, type Page } from '~server/scim/list'
import { GROUP_SCHEMA } from '~server/scim/schemas'

/**
 * The four Groups, one per role. A group lists its members when the answer is to hold them; a
 * group of more than 10,000 accounts (CLIENT, in a large company) is a 400 `tooMany` then, telling
 * to leave them out (`excludedAttributes=members`, as Entra ID and Okta ask) and to read people's
 * roles from the Users instead (decision 0532).
 */
export const MAX_LISTED_MEMBERS = 10_000

export function isRole(id: string): id is Role {
  return (ROLES as readonly string[]).includes(id)
}

async function toGroup(ctx: AppContext, role: Role, baseUrl: string, projection: Projection) {
  const group: Record<string, unknown> = {
    schemas: [GROUP_SCHEMA],
    id: role,
    displayName: role,
    meta: { resourceType: 'Group', location: `${baseUrl}/Groups/${role}` },
  }
  if (projectionWants(projection, 'members', GROUP_SCHEMA)) {
    const members = await listRoleMembers(ctx.db, role, MAX_LISTED_MEMBERS + 1)
    if (members.length > MAX_LISTED_MEMBERS) {
      throw new ScimError(
        400,
        `The ${role} group has more than ${MAX_LISTED_MEMBERS} members: ask with excludedAttributes=members, and read roles from the Users`,
        'tooMany',
      )
    }
    group.members = members.map((member) => ({ value: member.id, display: member.name, type: 'User', $ref: `${baseUrl}/Users/${member.id}` }))
  }
  return project(group, projection, GROUP_SCHEMA)
}

export async function getScimGroup(ctx: AppContext, id: string, baseUrl: string, projection: Projection) {
  if (!isRole(id)) throw scimNotFound(`No group ${JSON.stringify(id)}: the groups are ${ROLES.join(', ')}`)
  return toGroup(ctx, id, baseUrl, projection)
}

export async function listScimGroups(ctx: AppContext, query: { filter?: string; page: Page; projection: Projection }, baseUrl: string) {
  let roles: Role[] = [...ROLES]
  if (query.filter !== undefined) {
    const filter = parseFilter(query.filter)
    const roleOf = await rolesOf(ctx.db, memberIdsIn(filter))
    roles = roles.filter((role) => groupMatches(filter, role, roleOf))
  }
  const shown = roles.slice(query.page.startIndex - 1, query.page.startIndex - 1 + query.page.count)
  const resources = []
  for (const role of shown) resources.push(await toGroup(ctx, role, baseUrl, query.projection))
  return listResponse(resources, roles.length, query.page)
}
