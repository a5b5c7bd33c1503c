import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/**
 * Holds every answer of the API suite to the OpenAPI document (GET /api/openapi.json): the route's
 * operation must declare the answer's status and content type, and a JSON body must match the
 * declared schema. Installed by the shared test app on every app it builds, so every API test
 * exercises it; a violation fails the request that caused it (tests/support/test-app.ts).
 *
 * The document is checked, not the zod schemas it was made from: the serializer already holds
 * declared answers to those, but only this catches an undeclared status, or a document that
 * says something other than what the server does.
 */

export interface ContractViolation {
  requestId: string
  request: string
  problem: string
}

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>
}

interface Document {
  paths: Record<string, Record<string, Operation>>
  components?: object
}

/** `documentOf` stands in for the app's own document (to show that the check fails when it should). */
export function installResponseContract(app: FastifyInstance, documentOf: () => object = () => app.swagger()): ContractViolation[] {
  const violations: ContractViolation[] = []
  let document: Document | undefined
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  const validators = new Map<string, ValidateFunction>()

  // Every schema is compiled with the document's components beside it, so its $refs resolve.
  const validatorFor = (key: string, schema: object) => {
    let validate = validators.get(key)
    if (!validate) validators.set(key, (validate = ajv.compile({ ...schema, components: document!.components })))
    return validate
  }

  const check = (request: FastifyRequest, reply: FastifyReply, payload: unknown): string | undefined => {
    document ??= documentOf() as Document
    const route = request.routeOptions.url
    const status = String(reply.statusCode)
    const method = request.method === 'HEAD' ? 'get' : request.method.toLowerCase()
    // A request no route took (an unknown address under /api): the envelope's 404.
    const path = route?.replace(/:(\w+)/g, '{$1}')
    const operation = path ? document.paths[path]?.[method] : undefined
    if (route && !operation) return `${request.method} ${route} is not in the document`
    const declared = operation
      ? operation.responses?.[status]
      : status === '404'
        ? { content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } }
        : undefined
    if (!declared) return `status ${status} is not declared for ${request.method} ${route ?? '(no route)'}`
    const type = String(reply.getHeader('content-type') ?? '')
      .split(';')[0]!
      .trim()
    const media = declared.content?.[type]
    if (declared.content && !media) return `content type "${type}" is not declared for ${status} (declared: ${Object.keys(declared.content).join(', ')})`
    if (type !== 'application/json' || !media?.schema || request.method === 'HEAD') return undefined
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined
    let body: unknown
    try {
      body = JSON.parse(payload.toString())
    } catch {
      return `the ${status} body is not JSON`
    }
    const validate = validatorFor(`${path} ${method} ${status} ${type}`, media.schema)
    if (!validate(body)) return `the ${status} body does not match its schema: ${ajv.errorsText(validate.errors)}; body: ${payload.toString().slice(0, 500)}`
    return undefined
  }

  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.startsWith('/api/') && request.url !== '/api') return payload
    // CORS preflights are answered by @fastify/cors for any path: HTTP plumbing, not the API.
    if (request.method === 'OPTIONS' && request.routeOptions.url === '*') return payload
    const problem = check(request, reply, payload)
    if (problem) violations.push({ requestId: request.id, request: `${request.method} ${request.url}`, problem })
    return payload
  })
  return violations
}
