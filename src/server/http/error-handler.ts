import crypto from 'node:crypto'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import type { ErrorCode } from '~shared/error-codes'
import { isDatabaseUnavailable } from '~server/db/database'
import { type FieldError, HttpError } from './errors'
import { SECURITY_HEADERS } from './security-headers'

/**
 * The one place that turns failures into the API's failure envelope. 4xx answers say what was wrong;
 * a 5xx says only that something failed, with the request id, and the details go to the log.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = describe(error)
    if (failure.status >= 500 && failure.status !== 503) {
      request.log.error({ err: error }, 'request failed')
    } else if (failure.status === 503) {
      const cause = (error as { cause?: unknown }).cause
      request.log.warn({ err: { message: error.message, code: error.code, ...(cause instanceof Error ? { cause: cause.message } : {}) } }, 'service unavailable')
    }
    return sendFailure(request, reply, failure)
  })

  app.setNotFoundHandler((request, reply) => sendFailure(request, reply, { status: 404, message: 'Not found', code: 'NOT_FOUND' }))
}

/**
 * Fastify's `frameworkErrors`: a request the router could not take (a path that is not valid
 * percent-encoding, a path parameter over the length cap). No hook has run for it, so the
 * headers the hooks would have set are set here.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void reply.headers(SECURITY_HEADERS).header('Cache-Control', 'no-store').header('X-Request-Id', request.id)
  const status = error.statusCode === 414 ? 414 : 400
  const message = status === 414 ? 'Request path is too long' : 'Request path is not valid'
  void sendFailure(request, reply, { status, message, code: status === 414 ? 'URI_TOO_LONG' : 'BAD_REQUEST' })
}

/**
 * Fastify's `clientErrorHandler`: HTTP that could not even be parsed into a request (a body
 * longer than its Content-Length, broken headers, too many of them). The answer is written to
 * the socket by hand, as an envelope with the usual headers, and the connection is closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, reason, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'The request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'Request headers are too large']
        : [400, 'Bad Request', 'The request is not valid HTTP']
  const requestId = crypto.randomUUID()
  const body = JSON.stringify({ success: false, message, code: 'BAD_REQUEST', requestId })
  const headers = {
    ...SECURITY_HEADERS,
    'Cache-Control': 'no-store',
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    Connection: 'close',
  }
  if (socket.writable) {
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
    socket.write(`HTTP/1.1 ${status} ${reason}\r\n${head.join('')}\r\n${body}`)
  }
  socket.destroy(error)
}

const CODE_OF_STATUS: Partial<Record<number, ErrorCode>> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
}

/** Enough for every field of the largest form, with room to spare. */
const MAX_FIELD_ERRORS = 20

export interface Failure {
  status: number
  message: string
  code: ErrorCode
  errors?: FieldError[]
  headers?: Record<string, string>
}

export function sendFailure(request: FastifyRequest, reply: FastifyReply, failure: Failure) {
  if (failure.headers) void reply.headers(failure.headers)
  return reply
    .code(failure.status)
    .type('application/json; charset=utf-8')
    .send({
      success: false,
      message: failure.message,
      code: failure.code,
      ...(failure.errors ? { errors: failure.errors } : {}),
      requestId: request.id,
    })
}

/** What a failure is, in the API's vocabulary (SCIM's answers translate it: http/scim-plumbing.ts). */
export function describe(error: FastifyError): Failure {
  if (error instanceof HttpError) {
    return { status: error.statusCode, message: error.message, code: error.code, ...error.extra }
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    // A body with thousands of unknown fields gets the first few named, not an answer larger than itself.
    const errors = error.validation.flatMap(toFieldErrors).slice(0, MAX_FIELD_ERRORS)
    return { status: 400, message: errors[0]?.message ?? 'Validation failed', code: 'VALIDATION_ERROR', errors }
  }
  if (isDatabaseUnavailable(error)) {
    return {
      status: 503,
      message: 'The service is temporarily unavailable. Please try again shortly.',
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'Retry-After': '5' },
    }
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: 'Request body is too large', code: 'PAYLOAD_TOO_LARGE' }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'Content-Type must be application/json', code: 'UNSUPPORTED_MEDIA_TYPE' }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, message: 'Request body is empty', code: 'BAD_REQUEST' }
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, message: 'Request body is not valid JSON', code: 'BAD_REQUEST' }
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) {
    // Fastify's own codes (FST_ERR_…) stay inside: the envelope speaks only the shared vocabulary.
    return { status, message: error.message || 'Bad request', code: CODE_OF_STATUS[status] ?? 'BAD_REQUEST' }
  }
  return { status: 500, message: 'Internal server error', code: 'INTERNAL_ERROR' }
}

function toFieldErrors(issue: { instancePath: string; message?: string | undefined; keyword: string; params: Record<string, unknown> }): FieldError[] {
  const field = issue.instancePath.replace(/^\//, '').replace(/\//g, '.')
  if (issue.keyword === 'unrecognized_keys' && Array.isArray(issue.params.keys)) {
    return issue.params.keys.map((key) => ({
      field: [field, String(key)].filter(Boolean).join('.'),
      message: `Unrecognized field "${String(key)}"`,
    }))
  }
  return [{ field: field || 'body', message: issue.message ?? 'Invalid value' }]
}
