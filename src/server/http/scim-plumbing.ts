import type { FastifyError, FastifyInstance } from 'fastify'
import { ScimError } from '~server/scim/errors'
import { describe } from './error-handler'
import { parseJsonBody } from './json-body'

/**
 * What every answer under /scim/v2 shares (RFC 7644 section 3.1, 3.12): bodies in
 * `application/scim+json` (and `application/json`, read by the same guarded parser), answers in
 * `application/scim+json`, never stored by a cache, and every failure a SCIM error, not the API's
 * envelope: the API's own failures (a body too large, a database outage, a throttle) keep their
 * status and say the same in SCIM's form. Registered inside the SCIM plugin, so the rest of the
 * product keeps its own.
 */
export const SCIM_MEDIA_TYPE = 'application/scim+json'

export function registerScimPlumbing(app: FastifyInstance): void {
  app.addContentTypeParser(SCIM_MEDIA_TYPE, { parseAs: 'string' }, parseJsonBody)
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('Cache-Control', 'no-store')
    const type = reply.getHeader('content-type')
    if (typeof type === 'string' && type.startsWith('application/json')) void reply.type(`${SCIM_MEDIA_TYPE}; charset=utf-8`)
    return payload
  })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let scim: ScimError
    if (error instanceof ScimError) {
      scim = error
    } else {
      const failure = describe(error)
      if (failure.status >= 500 && failure.status !== 503) request.log.error({ err: error }, 'request failed')
      else if (failure.status === 503) request.log.warn({ err: { message: error.message, code: error.code } }, 'service unavailable')
      if (failure.headers) void reply.headers(failure.headers)
      // A body that is not JSON at all, or not the JSON it must be, is RFC 7644's invalidSyntax.
      scim = new ScimError(
        failure.status,
        failure.status === 500 ? `Internal server error (request ${request.id})` : failure.message,
        failure.status === 400 ? 'invalidSyntax' : undefined,
      )
    }
    return reply.code(scim.status).type(`${SCIM_MEDIA_TYPE}; charset=utf-8`).send(scim.toBody())
  })

  app.setNotFoundHandler((_request, reply) => {
    const scim = new ScimError(404, 'No such endpoint of the SCIM service')
    return reply.code(404).type(`${SCIM_MEDIA_TYPE}; charset=utf-8`).send(scim.toBody())
  })
}
