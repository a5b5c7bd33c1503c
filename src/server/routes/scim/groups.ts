import type { FastifyInstance } from 'fastify'
import type { AppContext } from '~server/context'
import { readProjection } from '~server/scim/attributes'
import { scimForbidden, scimNotFound } from '~server/scim/errors'
import { readGroupPatch } from '~server/scim/group-patch'
import { readPage } from '~server/scim/list'
import { readPatchBody } from '~server/scim/patch'
import { changeGroupMembers } from '~server/use-cases/scim/change-members'
import { getScimGroup, isRole, listScimGroups } from '~server/use-cases/scim/read-groups'
import { scimAction } from './caller'
import { readFilter } from './users'

type Query = Record<string, unknown>

const fixedGroups = () => scimForbidden('Groups are the four roles: they cannot be created, replaced or deleted')

/** /Groups: the four roles, whose members a directory changes (contract section 13). */
export function scimGroupRoutes(ctx: AppContext, baseUrl: string) {
  return async (app: FastifyInstance) => {
    app.get<{ Querystring: Query }>('/Groups', async (request) => {
      const { query } = request
      const filter = readFilter(query.filter)
      const projection = readProjection(query.attributes, query.excludedAttributes)
      return listScimGroups(ctx, { ...(filter !== undefined ? { filter } : {}), page: readPage(query.startIndex, query.count), projection }, baseUrl)
    })

    app.get<{ Params: { id: string }; Querystring: Query }>('/Groups/:id', async (request) =>
      getScimGroup(ctx, request.params.id, baseUrl, readProjection(request.query.attributes, request.query.excludedAttributes)),
    )

    app.patch<{ Params: { id: string } }>('/Groups/:id', async (request, reply) => {
      const { id } = request.params
      if (!isRole(id)) throw scimNotFound(`No group ${JSON.stringify(id)}`)
      const change = readGroupPatch(readPatchBody(request.body), id)
      await changeGroupMembers(ctx, scimAction(request), id, change)
      return reply.code(204).send()
    })

    app.post('/Groups', async () => {
      throw fixedGroups()
    })
    app.put('/Groups/:id', async () => {
      throw fixedGroups()
    })
    app.delete('/Groups/:id', async () => {
      throw fixedGroups()
    })
  }
}
