import type { ErrorCode } from '~shared/error-codes'

/**
 * Errors that become the API's failure envelope. Throw one from anywhere in a request; the
 * central error handler turns it into `{ success: false, message, code, errors?, requestId }`.
 */

export interface FieldError {
  field: string
  message: string
}

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code: ErrorCode,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message)
  }
}

export const badRequest = (message: string, code: ErrorCode = 'BAD_REQUEST') => new HttpError(400, message, code)

/** A 400 carrying field messages, the same shape the schema validation produces. */
export const fieldErrors = (errors: FieldError[]) => new HttpError(400, errors[0]?.message ?? 'Validation failed', 'VALIDATION_ERROR', { errors })

export const unauthorized = (message = 'Authentication required', code: ErrorCode = 'UNAUTHORIZED') => new HttpError(401, message, code)

export const forbidden = (message = 'You do not have permission to perform this action', code: ErrorCode = 'FORBIDDEN') => new HttpError(403, message, code)

export const notFound = (message = 'Not found', code: ErrorCode = 'NOT_FOUND') => new HttpError(404, message, code)

/** A request for a host name this server does not serve (DNS rebinding, http/host-check.ts). */
export const misdirectedRequest = () => new HttpError(421, 'This server does not answer for that host name', 'MISDIRECTED_REQUEST')

export const conflict = (message: string, code: ErrorCode = 'CONFLICT') => new HttpError(409, message, code)

export const tooManyRequests = (retryAfterSeconds: number) =>
  new HttpError(429, 'Too many attempts. Please wait a while and try again.', 'RATE_LIMITED', {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  })

export const serviceUnavailable = (message = 'The service is temporarily unavailable. Please try again shortly.') =>
  new HttpError(503, message, 'SERVICE_UNAVAILABLE', { headers: { 'Retry-After': '5' } })
