import type { FastifyInstance, FastifyRequest } from 'fastify'
import { checkServiceCredential } from '~server/auth/service-credentials'
import type { AppContext } from '~server/context'
import { HttpError } from '~server/http/errors'
import { ScimError, scimUnauthorized } from '~server/scim/errors'
import type { ScimAction } from '~server/use-cases/scim/scim-rules'

/**
 * Who calls the SCIM service: a service application holding the `scim` scope, by an API key or a
 * client-credentials access token (contract sections 11 and 13), checked by the one credential
 * check of the admin API. Anything else, a person's token or a credential without the scope
 * included, is a SCIM 401.
 */
declare module 'fastify' {
  interface FastifyRequest {
    scimApplication: { id: string; name: string } | null
  }
}

export function registerScimAuthentication(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('scimApplication', null)
  app.addHook('onRequest', async (request, reply) => {
    try {
      const caller = await checkServiceCredential(ctx, request.headers.authorization, 'scim')
      request.scimApplication = caller.application
    } catch (error) {
      if (error instanceof HttpError && (error.statusCode === 401 || error.statusCode === 403)) {
        void reply.header('WWW-Authenticate', 'Bearer')
        throw scimUnauthorized()
      }
      throw error
    }
  })
}

export function scimAction(request: FastifyRequest): ScimAction {
  if (!request.scimApplication) throw new ScimError(401, 'Authentication required')
  return { application: request.scimApplication, ip: request.ip }
}
