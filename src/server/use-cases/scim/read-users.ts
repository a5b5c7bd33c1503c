import type { AppContext } from '~server/context'
import { findScimUser, listScimUsers } from '~server/data/scim/scim-users'
import { type Projection, project } from '~server/scim/attributes'
import { scimNotFound } from '~server/scim/errors'
import { parseFilter } from '~server/scim/filter'
import { listResponse, type Page } from '~server/scim/list'
import { USER_SCHEMA } from '~server/scim/schemas'
import { resolveUserFilter } from '~server/scim/user-filter'
import { toScimUser } from '~server/scim/user-resource'

/**
 * Users read by a directory: one by id, or a page of those a filter finds, counted in all.
 * Filtering for an unknown user answers an empty list (200, `totalResults` 0).
 */
/**
 * Where the last pages read left off, by filter and the `startIndex` that comes next: a directory
 * reading every account 200 at a time asks for 1, 201, 401, …, and each next page is read from the
 * id it stopped at instead of by skipping all the accounts before it (decision 0532). A page asked
 * for otherwise (another instance served the last one, a jump) is read by skipping, with the same
 * answer while nothing changed between the pages.
 */
const resumePoints = new WeakMap<AppContext, Map<string, string>>()
const MAX_RESUME_POINTS = 1_000

function resumePointsOf(ctx: AppContext): Map<string, string> {
  let points = resumePoints.get(ctx)
  if (!points) resumePoints.set(ctx, (points = new Map()))
  return points
}

export async function listUsers(ctx: AppContext, query: { filter?: string; page: Page; projection: Projection }, baseUrl: string) {
  const filter = query.filter === undefined ? undefined : resolveUserFilter(parseFilter(query.filter))
  const points = resumePointsOf(ctx)
  const key = (startIndex: number) => `${query.filter ?? ''}\u0000${startIndex}`
  const after = query.page.startIndex > 1 ? points.get(key(query.page.startIndex)) : undefined
  const { rows, total } = await listScimUsers(ctx.db, {
    ...(filter ? { filter } : {}),
    startIndex: query.page.startIndex,
    count: query.page.count,
    ...(after !== undefined ? { after } : {}),
  })
  points.delete(key(query.page.startIndex))
  const last = rows.at(-1)
  if (last && rows.length === query.page.count) {
    points.set(key(query.page.startIndex + rows.length), last.id)
    if (points.size > MAX_RESUME_POINTS) points.delete(points.keys().next().value!)
  }
  return listResponse(
    rows.map((row) => project(toScimUser(row, baseUrl), query.projection, USER_SCHEMA)),
    total,
    query.page,
  )
}

export async function getUser(ctx: AppContext, id: string, baseUrl: string, projection: Projection) {
  const row = await findScimUser(ctx.db, id)
  if (!row) throw scimNotFound(`No user ${JSON.stringify(id)}`)
  return project(toScimUser(row, baseUrl), projection, USER_SCHEMA)
}
