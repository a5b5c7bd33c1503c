import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import { isDatabaseUnavailable } from '../db/database'
import { type FieldError, HttpError } from './errors'

/**
 * The one place that turns failures into the contract's envelope. 4xx answers say what was wrong;
 * a 5xx says only that something failed, with the request id, and the details go to the log.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = describe(error)
    if (failure.status >= 500 && failure.status !== 503) {
      request.log.error({ err: error }, 'request failed')
    } else if (failure.status === 503) {
      const cause = (error as { cause?: unknown }).cause
      request.log.warn(
        { err: { message: error.message, code: error.code, ...(cause instanceof Error ? { cause: cause.message } : {}) } },
        'service unavailable',
      )
    }
    return sendFailure(request, reply, failure)
  })

  app.setNotFoundHandler((request, reply) =>
    sendFailure(request, reply, { status: 404, message: 'Not found', code: 'NOT_FOUND' }),
  )
}

/** Enough for every field of the largest form, with room to spare. */
const MAX_FIELD_ERRORS = 20

interface Failure {
  status: number
  message: string
  code: string
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

function describe(error: FastifyError): Failure {
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
    return { status, message: error.message || 'Bad request', code: error.code ?? 'BAD_REQUEST' }
  }
  return { status: 500, message: 'Internal server error', code: 'INTERNAL_ERROR' }
}

function toFieldErrors(issue: {
  instancePath: string
  message?: string | undefined
  keyword: string
  params: Record<string, unknown>
}): FieldError[] {
  const field = issue.instancePath.replace(/^\//, '').replace(/\//g, '.')
  if (issue.keyword === 'unrecognized_keys' && Array.isArray(issue.params.keys)) {
    return issue.params.keys.map((key) => ({
      field: [field, String(key)].filter(Boolean).join('.'),
      message: `Unrecognized field "${String(key)}"`,
    }))
  }
  return [{ field: field || 'body', message: issue.message ?? 'Invalid value' }]
}
