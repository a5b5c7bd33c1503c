import type { FastifyInstance, FastifyRequest } from 'fastify'
import secureJson from 'secure-json-parse'
import { badRequest } from './errors'

/**
 * JSON is the only body type (anything else is a 415). Parsed with prototype-poisoning
 * protection: a body naming `__proto__` or `constructor.prototype` is refused with a 400 that
 * says so, before any handler sees it. So is text that is not well-formed Unicode (a lone
 * surrogate, which JSON can spell as `\ud800`): stored, it would come back as something else,
 * and it breaks whatever encodes it as UTF-8 (links, mail headers).
 *
 * A call that takes no body (sign-out, say) ignores an empty one, whatever its Content-Type:
 * many clients send `application/json` on every request.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody)
}

/** The JSON parser itself, for a media type of JSON a plugin adds (SCIM's `application/scim+json`). */
export const parseJsonBody: ContentTypeParser = (request, body, done) => {
  const text = body as string
  if (text.trim() === '') {
    return request.routeOptions.schema?.body ? done(badRequest('Request body is empty'), undefined) : done(null, undefined)
  }
  let value: unknown
  try {
    value = secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    const poisoned = error instanceof Error && /prototype/.test(error.message)
    return done(badRequest(poisoned ? 'Request body contains a forbidden property name' : 'Request body is not valid JSON'), undefined)
  }
  // Only an escape can carry a lone surrogate: raw bytes that are not UTF-8 were already decoded to U+FFFD.
  if (SURROGATE_ESCAPE.test(text) && !wellFormed(value)) {
    return done(badRequest('Request body contains text that is not valid Unicode'), undefined)
  }
  done(null, value)
}

type ContentTypeParser = (request: FastifyRequest, body: string | Buffer, done: (error: Error | null, value?: unknown) => void) => void

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/
const LONE_SURROGATE = /\p{Cs}/u

/** Every string in the value, keys included, is well-formed UTF-16. Iterative: bodies may nest deep. */
function wellFormed(value: unknown): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next === 'string') {
      if (LONE_SURROGATE.test(next)) return false
    } else if (next !== null && typeof next === 'object') {
      for (const [key, inner] of Object.entries(next)) {
        if (LONE_SURROGATE.test(key)) return false
        pending.push(inner)
      }
    }
  }
  return true
}
