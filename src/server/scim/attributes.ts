import { invalidValue } from './errors'
import { type AttributePath, parseAttributeName } from './filter'

/**
 * `attributes` and `excludedAttributes` (RFC 7644 section 3.4.2.5): which attributes an answer
 * holds. `id` and `schemas` are always returned; a name may carry its schema URN
 * (`urn:…:User:userName`) or a sub-attribute (`name.givenName`, `emails.value`); a name the
 * resource does not have is simply not there.
 */
export interface Projection {
  include?: AttributePath[]
  exclude?: AttributePath[]
}

const ALWAYS = new Set(['id', 'schemas'])
const MAX_NAMES = 100

function readList(value: unknown, parameter: string): AttributePath[] | undefined {
  if (value === undefined || value === '') return undefined
  if (typeof value !== 'string') throw invalidValue(`${parameter} must be given once, as a comma-separated list`)
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '')
  if (names.length > MAX_NAMES) throw invalidValue(`${parameter} names at most ${MAX_NAMES} attributes`)
  return names.map((name) => {
    try {
      return parseAttributeName(name)
    } catch {
      throw invalidValue(`${parameter}: ${JSON.stringify(name)} is not an attribute name`)
    }
  })
}

export function readProjection(attributes: unknown, excludedAttributes: unknown): Projection {
  const include = readList(attributes, 'attributes')
  const exclude = readList(excludedAttributes, 'excludedAttributes')
  return { ...(include ? { include } : {}), ...(exclude ? { exclude } : {}) }
}

/** Whether the answer holds the top-level attribute (so that an expensive one is loaded only when it is). */
export function projectionWants(projection: Projection, name: string, schema: string): boolean {
  const lower = name.toLowerCase()
  const names = (paths: AttributePath[]) => paths.filter((path) => ownSchema(path, schema) && path.name.toLowerCase() === lower)
  if (projection.include) return names(projection.include).length > 0
  if (projection.exclude) return !names(projection.exclude).some((path) => path.sub === undefined)
  return true
}

function ownSchema(path: AttributePath, schema: string): boolean {
  return path.schema === undefined || path.schema.toLowerCase() === schema.toLowerCase()
}

type Json = Record<string, unknown>

function keyOf(object: Json, name: string): string | undefined {
  const lower = name.toLowerCase()
  return Object.keys(object).find((key) => key.toLowerCase() === lower)
}

function pickSub(value: unknown, sub: string): unknown {
  const pick = (element: unknown) => {
    if (typeof element !== 'object' || element === null) return undefined
    const key = keyOf(element as Json, sub)
    return key === undefined ? undefined : { [key]: (element as Json)[key] }
  }
  if (Array.isArray(value)) return value.map(pick).filter((element) => element !== undefined)
  return pick(value)
}

function merge(into: unknown, part: unknown): unknown {
  if (into === undefined) return part
  if (Array.isArray(into) && Array.isArray(part)) return into.map((element, index) => ({ ...(element as Json), ...(part[index] as Json) }))
  return { ...(into as Json), ...(part as Json) }
}

export function project<T extends Json>(resource: T, projection: Projection, schema: string): Json {
  if (projection.include) {
    const result: Json = {}
    for (const key of Object.keys(resource)) if (ALWAYS.has(key)) result[key] = resource[key]
    for (const path of projection.include) {
      if (!ownSchema(path, schema)) continue
      const key = keyOf(resource, path.name)
      if (key === undefined) continue
      const part = path.sub === undefined ? resource[key] : pickSub(resource[key], path.sub)
      if (part !== undefined) result[key] = path.sub === undefined ? part : merge(result[key], part)
    }
    return result
  }
  if (projection.exclude) {
    const result: Json = structuredClone(resource)
    for (const path of projection.exclude) {
      if (!ownSchema(path, schema)) continue
      const key = keyOf(result, path.name)
      if (key === undefined || ALWAYS.has(key)) continue
      if (path.sub === undefined) {
        delete result[key]
        continue
      }
      const elements = Array.isArray(result[key]) ? (result[key] as Json[]) : [result[key] as Json]
      for (const element of elements) {
        const subKey = typeof element === 'object' && element !== null ? keyOf(element, path.sub) : undefined
        if (subKey !== undefined) delete element[subKey]
      }
    }
    return result
  }
  return resource
}
