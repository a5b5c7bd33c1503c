import type { FastifyInstance, FastifyRequest } from 'fastify'
import { readProjection } from '~server/scim/attributes'
import { invalidFilter } from '~server/scim/errors'
import { readPage } from '~server/scim/list'
import { applyUserPatch, readPatchBody } from '~server/scim/patch'
import { patchableUser, readUserResource, toScimUser } from '~server/scim/user-resource'
import type { AppContext } from '~server/context'
import { deleteScimUser } from '~server/use-cases/scim/delete-user'
import { getUser, listUsers } from '~server/use-cases/scim/read-users'
import { createScimUser, updateScimUser } from '~server/use-cases/scim/write-user'
import { scimAction } from './caller'

type Query = Record<string, unknown>
type WithId = { Params: { id: string }; Querystring: Query }

export function readFilter(value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw invalidFilter('filter must be given once')
  return value
}

const projectionOf = (request: FastifyRequest<{ Querystring: Query }>) => readProjection(request.query.attributes, request.query.excludedAttributes)

/** /Users: a directory's people, as accounts (contract section 13). */
export function scimUserRoutes(ctx: AppContext, baseUrl: string) {
  return async (app: FastifyInstance) => {
    app.get<{ Querystring: Query }>('/Users', async (request) => {
      const { query } = request
      const filter = readFilter(query.filter)
      return listUsers(ctx, { ...(filter !== undefined ? { filter } : {}), page: readPage(query.startIndex, query.count), projection: projectionOf(request) }, baseUrl)
    })

    app.get<WithId>('/Users/:id', async (request) => getUser(ctx, request.params.id, baseUrl, projectionOf(request)))

    app.post<{ Querystring: Query }>('/Users', async (request, reply) => {
      const input = readUserResource(request.body)
      const created = toScimUser(await createScimUser(ctx, scimAction(request), input), baseUrl)
      return reply.code(201).header('Location', created.meta.location).send(created)
    })

    app.put<WithId>('/Users/:id', async (request) => {
      const input = readUserResource(request.body)
      return toScimUser(await updateScimUser(ctx, scimAction(request), request.params.id, () => input), baseUrl)
    })

    app.patch<WithId>('/Users/:id', async (request) => {
      const operations = readPatchBody(request.body)
      const updated = await updateScimUser(ctx, scimAction(request), request.params.id, (current) => readUserResource(applyUserPatch(patchableUser(current), operations)))
      return toScimUser(updated, baseUrl)
    })

    app.delete<WithId>('/Users/:id', async (request, reply) => {
      await deleteScimUser(ctx, scimAction(request), request.params.id)
      return reply.code(204).send()
    })
  }
}
