import type { FastifyServerOptions } from 'fastify'

/**
 * Logger settings (decision 0304). No header and no body is ever
 * logged. Two layers keep secrets out of what is:
 *
 * - request URLs: one-time tokens are cut out of API paths (/verify-email/<token>), and every
 *   query value is replaced unless its parameter's name is on the short list of list filters
 *   below. A client may put a token under any name (`?access_token=`, `?code=`, `?t=`), so the
 *   list says what is harmless instead of what is secret.
 * - every line, whatever wrote it: anything shaped like a JWT or like one of the product's tokens
 *   (refresh, reset, verification, CSRF: 32 bytes in base64url, 43 characters; longer runs are
 *   cut too) is replaced before the line is written, so a token in an error message, a path
 *   segment or a harmless-looking parameter does not reach the log either.
 */

/** Query parameters whose values are worth keeping in the log: the lists' paging and filters. */
const HARMLESS_QUERY_PARAMETERS = new Set(['page', 'limit', 'search', 'role', 'status', 'activity', 'sort', 'order', 'verified', 'mfa', 'inactiveDays', 'from', 'to'])

const REDACTED = '[redacted]'

/** A JWT (its header is base64url JSON, so it starts with "eyJ"), with its dot-separated parts. */
const JWT = /eyJ[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*){1,4}/g
/** A run of 43 or more base64url characters, taken whole (the look-behind starts it at its beginning). */
const TOKEN_RUN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43,}/g

/** Replaces whatever looks like a token in any text (a log line, a URL, a value). */
export function redactTokens(text: string): string {
  return text.replace(JWT, REDACTED).replace(TOKEN_RUN, REDACTED)
}

function looksLikeToken(value: string): boolean {
  let decoded = value
  try {
    decoded = decodeURIComponent(value.replace(/\+/g, ' '))
  } catch {
    // Not valid percent-encoding: judged as it is.
  }
  return redactTokens(decoded) !== decoded || redactTokens(value) !== value
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      if (equals === -1) return looksLikeToken(pair) ? REDACTED : pair
      const name = pair.slice(0, equals)
      const value = pair.slice(equals + 1)
      const keep = HARMLESS_QUERY_PARAMETERS.has(name) && !looksLikeToken(value)
      return `${name}=${keep || value === '' ? value : REDACTED}`
    })
    .join('&')
}

/** The URL as the log may show it: one-time tokens out of the path, query values out unless harmless. */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#')
  const withoutFragment = hash === -1 ? url : url.slice(0, hash)
  const question = withoutFragment.indexOf('?')
  const path = question === -1 ? withoutFragment : withoutFragment.slice(0, question)
  const redactedPath = path.replace(/\/(verify-email|reset-password|accept-invite)\/[^/]+/g, `/$1/${REDACTED}`)
  return question === -1 ? redactedPath : `${redactedPath}?${redactQuery(withoutFragment.slice(question + 1))}`
}

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      paths: ['req.headers', 'headers.authorization', 'headers.cookie', '*.password', '*.refreshToken', '*.accessToken'],
      censor: REDACTED,
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }
      },
      res(reply: { statusCode: number }) {
        return { statusCode: reply.statusCode }
      },
    },
    // The last word on every line, after serialisation: whatever wrote it.
    hooks: { streamWrite: redactTokens },
  }
}
