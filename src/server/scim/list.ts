import { invalidValue, ScimError } from './errors'
import { LIST_RESPONSE_SCHEMA, MAX_RESULTS } from './schemas'

/**
 * Paging (RFC 7644 section 3.4.2.4): `startIndex` counts from 1 (below 1 is read as 1), `count`
 * from 0 (below 0 is read as 0) up to 200, the default; above 200 is a 400 `tooMany`, so a
 * directory never takes a short page for the end of the list.
 */
export interface Page {
  startIndex: number
  count: number
}

function integer(value: unknown, parameter: string): number | undefined {
  if (value === undefined || value === '') return undefined
  if (typeof value !== 'string' || !/^-?\d{1,12}$/.test(value.trim())) throw invalidValue(`${parameter} must be an integer`)
  return Number(value.trim())
}

export function readPage(startIndex: unknown, count: unknown): Page {
  const start = integer(startIndex, 'startIndex') ?? 1
  const size = integer(count, 'count') ?? MAX_RESULTS
  if (size > MAX_RESULTS) throw new ScimError(400, `count is at most ${MAX_RESULTS}`, 'tooMany')
  return { startIndex: Math.max(1, start), count: Math.max(0, size) }
}

export function listResponse(resources: unknown[], totalResults: number, page: Page) {
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults, startIndex: page.startIndex, itemsPerPage: resources.length, Resources: resources }
}
