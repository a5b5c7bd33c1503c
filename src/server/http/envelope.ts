import { z } from 'zod'
import { ERROR_CODES } from '~shared/error-codes'

/** The API's answer envelope, as zod schemas for route declarations and as builders. */

export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: z.string().optional(), data })
}

/** A success answer with nothing to read but its message. */
export const messageOnly = z.object({ success: z.literal(true), message: z.string() })

export const failureEnvelope = z.object({
  success: z.literal(false),
  message: z.string(),
  code: z.enum(ERROR_CODES),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  requestId: z.string(),
})

/** Response schemas for the failure statuses a route can answer with. */
export function failures<const S extends number>(...statuses: S[]): Record<S, typeof failureEnvelope> {
  return Object.fromEntries(statuses.map((status) => [status, failureEnvelope])) as Record<S, typeof failureEnvelope>
}

export function ok<T>(data: T, message?: string): { success: true; message?: string; data: T } {
  return message === undefined ? { success: true, data } : { success: true, message, data }
}

export function done(message: string): { success: true; message: string } {
  return { success: true, message }
}
