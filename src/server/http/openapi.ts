import fastifySwagger from '@fastify/swagger'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { createJsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { CSRF_HEADER } from '~shared/constants'
import type { Access } from '~shared/permissions'
import { API_SCOPE_NAMES, API_SCOPES, type ApiScope, scopeOf } from '~shared/scopes'
import { userSchema } from '~shared/schemas/user'
import { projectVersion } from '~server/config/paths'
import { accessOf, endpointKey } from './auth-guard'
import { failureEnvelope } from './envelope'
import { OPERATION_SUMMARIES } from './openapi-summaries'

/**
 * The OpenAPI 3.1 document of everything under /api, generated from the
 * zod schemas the routes validate with: requests (params, query, body), every answer status with
 * its envelope, and who may call (bearer token, and the CSRF header on writes).
 *
 * Routes declare the answers of their own logic (a 404 for an unknown id, a 409, a 429). The
 * answers that the framework and the guard give on any route are added here to every route that
 * can get them, so the document is complete and the serializer checks those bodies too.
 */

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

const STATUS_DESCRIPTIONS: Record<number, string> = {
  200: 'Success',
  201: 'Created',
  400: 'Invalid request: a message, and for validation one entry per field in `errors` (the messages are the ones the web app shows)',
  401: 'No credentials, or invalid or expired ones',
  403: 'Signed in but not allowed: role, missing or wrong CSRF token, or the account is not active and verified',
  404: 'Not found',
  409: 'Conflicts with the current state',
  413: 'Request body too large',
  415: 'The body is not `application/json`',
  421: "The request named a host this server does not answer for: the `Host` is neither `APP_URL`'s host nor a loopback name (refused before anything runs, against DNS rebinding)",
  429: 'Too many attempts; `Retry-After` says when to try again',
  500: 'Something failed on the server; the message is generic and `requestId` finds the details in the log',
  503: 'The database or the throttling store cannot be reached, the server is busy hashing passwords, or it is shutting down; try again after `Retry-After` (nothing was changed)',
}

const RETRY_AFTER = { 'Retry-After': { type: 'integer', description: 'Seconds to wait before trying again' } }

/** Component names in the document, so every answer refers to one definition of each. */
if (!z.globalRegistry.has(failureEnvelope)) z.globalRegistry.add(failureEnvelope, { id: 'Failure', description: 'The failure envelope' })
if (!z.globalRegistry.has(userSchema)) z.globalRegistry.add(userSchema, { id: 'User', description: 'A user, as every answer shows one' })

/** The failure answers a route can get from the framework and the guard, whatever its logic. */
export function frameworkFailureStatuses(method: string, route: Pick<RouteOptions, 'schema' | 'url'>, access: Access | undefined): number[] {
  // 421: the Host check (http/host-check.ts) answers before any route, whatever the route.
  const statuses = [421, 500, 503]
  if (access !== 'public') statuses.push(401, 403)
  // A service credential past API_RATE_LIMIT (auth/service-credentials.ts).
  if (access !== 'public' && scopeOf(endpointKey(method, route.url))) statuses.push(429)
  if (UNSAFE_METHODS.has(method)) statuses.push(400, 413, 415)
  if (route.schema?.querystring || route.schema?.params || route.schema?.body) statuses.push(400)
  return statuses
}

function completeResponses(route: RouteOptions): void {
  if (!route.url.startsWith('/api/')) return
  const method = [route.method].flat()[0]!
  const schema = (route.schema ??= {})
  const response = ((schema as { response?: Record<string, unknown> }).response ??= {})
  for (const status of frameworkFailureStatuses(method, route, accessOf(method, route.url))) response[status] ??= failureEnvelope
}

/**
 * Who may call: a person with the bearer token (and the CSRF header on writes), and, on a call the
 * scope table gives a scope, a service application's credential holding that scope (no CSRF).
 */
function security(method: string, access: Access | undefined, scope: ApiScope | undefined): Record<string, string[]>[] {
  if (access === 'public' || access === undefined) return []
  const person: Record<string, string[]> = UNSAFE_METHODS.has(method) ? { bearerAuth: [], csrfToken: [] } : { bearerAuth: [] }
  return scope ? [person, { serviceCredential: [scope] }] : [person]
}

function whoMayCall(access: Access | undefined, scope: ApiScope | undefined): string {
  if (access === 'public') return 'Anyone.'
  if (access === 'signed-in') return 'Any signed-in user.'
  const people = `Signed-in users with the role ${(access ?? []).join(', ')}.`
  return scope ? `${people} Service applications with the \`${scope}\` scope (${API_SCOPES[scope].allows.toLowerCase()}).` : people
}

const transformSchemas = createJsonSchemaTransform({})

type TransformInput = Parameters<typeof transformSchemas>[0]

/** Each route's zod schemas to JSON Schema, plus what the document says about the route. */
function transform(input: TransformInput) {
  // The document is of the API: /metrics and the web app's pages stay out of it.
  if (!input.url.startsWith('/api/')) return { schema: { hide: true }, url: input.url }
  const { schema = {}, url } = transformSchemas(input)
  const method = [input.route.method].flat()[0]!
  const key = `${method} ${url.replace(/^\/api/, '')}`
  const access = accessOf(method, url)
  const scope = scopeOf(key)
  const response = (schema as { response?: Record<string, Record<string, unknown>> }).response ?? {}
  for (const [status, answer] of Object.entries(response)) {
    const description = STATUS_DESCRIPTIONS[Number(status)]
    response[status] = {
      ...answer,
      ...(description && !answer.description ? { description } : {}),
      ...(status === '429' || status === '503' ? { headers: RETRY_AFTER } : {}),
    }
  }
  return {
    schema: {
      ...schema,
      operationId: operationId(method, url),
      summary: OPERATION_SUMMARIES[key as keyof typeof OPERATION_SUMMARIES] ?? key,
      description: whoMayCall(access, scope),
      tags: [tagOf(url)],
      security: security(method, access, scope),
    },
    url,
  }
}

/** "GET /api/admin/users/:id" → "getAdminUsersById": unique, stable, usable as a generated client's method name. */
function operationId(method: string, url: string): string {
  const words = url
    .replace(/^\/api\//, '')
    .split(/[/.]/)
    .filter(Boolean)
    .map((word) => (word.startsWith(':') ? `by-${word.slice(1)}` : word))
    .flatMap((word) => word.split('-'))
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')
}

/** Components that nothing refers to (zod's input twins of output schemas) are left out. */
interface OpenApiDocument {
  components?: { schemas?: Record<string, unknown> }
}

function withoutUnusedComponents(document: OpenApiDocument): OpenApiDocument {
  const schemas = { ...(document.components?.schemas ?? {}) }
  const text = JSON.stringify({ ...document, components: { ...document.components, schemas: {} } })
  let pending = Object.keys(schemas).filter((name) => text.includes(`"#/components/schemas/${name}"`))
  const used = new Set<string>()
  while (pending.length > 0) {
    const name = pending.pop()!
    if (used.has(name)) continue
    used.add(name)
    const inner = JSON.stringify(schemas[name])
    pending = pending.concat(Object.keys(schemas).filter((other) => inner.includes(`"#/components/schemas/${other}"`)))
  }
  return { ...document, components: { ...document.components, schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name))) } }
}

function tagOf(url: string): string {
  const area = url.split('/')[2] ?? ''
  return { auth: 'Authentication', users: 'Profile', activity: 'Activity', admin: 'Administration', health: 'Health' }[area] ?? 'Reference'
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', completeResponses)
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Accounts API',
        version: projectVersion(),
        description: [
          'Every answer is an envelope: `{ success: true, message?, data? }` on success,',
          '`{ success: false, message, code, errors?, requestId }` on failure (`errors` only for validation).',
          'Bodies are JSON. Signed-in calls send `Authorization: Bearer <accessToken>`; POST, PUT, PATCH and DELETE',
          `from a signed-in caller also send \`${CSRF_HEADER}: <csrfToken>\`. Both come from POST /api/auth/login;`,
          'trying sign-in on this page authorizes the page with them.',
        ].join(' '),
      },
      tags: [
        { name: 'Authentication', description: 'Registration, sign-in, sessions, e-mail verification and password reset' },
        { name: 'Profile', description: "The signed-in user's own account" },
        { name: 'Activity', description: "Staff members' own activity" },
        { name: 'Administration', description: 'Users, statistics and activity logs' },
        { name: 'Health', description: 'Probes for load balancers and orchestrators' },
        { name: 'Reference', description: 'This document and its page' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The `accessToken` from sign-in or refresh' },
          serviceCredential: {
            type: 'oauth2',
            description:
              'A service application’s credential, sent as `Authorization: Bearer …` without a CSRF header: an API key (`acc_sk_…`), or an access token of the client credentials grant at the OpenID Connect token endpoint (resource `APP_URL/api`).',
            flows: { clientCredentials: { tokenUrl: '/oidc/token', scopes: Object.fromEntries(API_SCOPE_NAMES.map((name) => [name, API_SCOPES[name].allows])) } },
          },
          csrfToken: {
            type: 'apiKey',
            in: 'header',
            name: CSRF_HEADER,
            description: "The session's `csrfToken`: required with the bearer token on POST, PUT, PATCH and DELETE",
          },
        },
      },
    },
    transform,
    transformObject: (document) => {
      const result = jsonSchemaTransformObject(document)
      return withoutUnusedComponents(result as OpenApiDocument) as typeof result
    },
  })
}
