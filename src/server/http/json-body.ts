import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { badRequest } from './errors'

/**
 * JSON is the only body type (anything else is a 415). Parsed with prototype-poisoning
 * protection: a body naming `__proto__` or `constructor.prototype` is refused with a 400 that
 * says so, before any handler sees it.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string
    if (text.trim() === '') return done(badRequest('Request body is empty'), undefined)
    try {
      done(null, secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' }))
    } catch (error) {
      const poisoned = error instanceof Error && /prototype/.test(error.message)
      done(badRequest(poisoned ? 'Request body contains a forbidden property name' : 'Request body is not valid JSON'), undefined)
    }
  })
}
