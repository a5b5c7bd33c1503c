/** A failed call: the server's envelope (message, code, field errors) or a network failure. */
export interface FieldError {
  field: string
  message: string
}

export const NETWORK_ERROR_MESSAGE = 'Network error: the server could not be reached'
export const TIMEOUT_MESSAGE = 'Network error: the request timed out'

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string = 'UNKNOWN',
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message)
    this.name = 'ApiError'
  }

  /** No answer at all: offline, refused, timed out. */
  get isNetwork(): boolean {
    return this.status === 0
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError
}
