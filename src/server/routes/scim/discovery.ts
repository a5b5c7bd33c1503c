import type { FastifyInstance } from 'fastify'
import { scimNotFound } from '~server/scim/errors'
import { resourceTypes, schemaDocuments, serviceProviderConfig } from '~server/scim/discovery'
import { LIST_RESPONSE_SCHEMA } from '~server/scim/schemas'

/**
 * The three discovery documents, which answer without credentials (contract section 13): a
 * directory reads them to learn what the service supports before it has been given a key.
 */
export function scimDiscoveryRoutes(baseUrl: string) {
  return async (app: FastifyInstance) => {
    const list = (resources: unknown[]) => ({
      schemas: [LIST_RESPONSE_SCHEMA],
      totalResults: resources.length,
      startIndex: 1,
      itemsPerPage: resources.length,
      Resources: resources,
    })

    app.get('/ServiceProviderConfig', async () => serviceProviderConfig(baseUrl))
    app.get('/ResourceTypes', async () => list(resourceTypes(baseUrl)))
    app.get<{ Params: { id: string } }>('/ResourceTypes/:id', async (request) => {
      const found = resourceTypes(baseUrl).find((type) => type.id === request.params.id)
      if (!found) throw scimNotFound(`No resource type ${JSON.stringify(request.params.id)}`)
      return found
    })
    app.get('/Schemas', async () => list(schemaDocuments(baseUrl)))
    app.get<{ Params: { id: string } }>('/Schemas/:id', async (request) => {
      const found = schemaDocuments(baseUrl).find((schema) => schema.id === request.params.id)
      if (!found) throw scimNotFound(`No schema ${JSON.stringify(request.params.id)}`)
      return found
    })
  }
}
