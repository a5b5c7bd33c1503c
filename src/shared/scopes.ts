import type { ApiEndpoint } from './permissions'

/**
 * The one scope table: what a service application may be granted (contract section 11), the line
 * that says what each allows (the admin form shows it), and the calls each opens. The server's
 * guard reads it for every call made with a service credential (an API key or a client-credentials
 * access token), the OpenAPI document lists each admin operation's scope, and the protocol engine
 * issues tokens for these scopes only. A person's token never gains a scope: it passes by role.
 */
export const API_SCOPES = {
  'users:read': {
    allows: 'Read users, their list and export, and the dashboard figures',
    endpoints: ['GET /admin/users', 'GET /admin/users/:id', 'GET /admin/users/export', 'GET /admin/stats'],
  },
  'users:write': {
    allows: "Invite and edit users, and act on a user's security (reset link, sign-out, two-factor)",
    endpoints: [
      'POST /admin/users',
      'PUT /admin/users/:id',
      'POST /admin/users/:id/invitation',
      'POST /admin/users/:id/password-reset',
      'DELETE /admin/users/:id/sessions',
      'DELETE /admin/users/:id/mfa',
    ],
  },
  'users:delete': {
    allows: 'Delete inactive users',
    endpoints: ['DELETE /admin/users/:id'],
  },
  'activity:read': {
    allows: 'Read the activity logs, their export and the event feed',
    endpoints: ['GET /admin/activity-logs', 'GET /admin/activity-logs/export', 'GET /admin/events'],
  },
  scim: {
    allows: "Provision users from the company's directory (SCIM 2.0)",
    endpoints: [],
  },
} as const satisfies Record<string, { allows: string; endpoints: readonly ApiEndpoint[] }>

export type ApiScope = keyof typeof API_SCOPES
export const API_SCOPE_NAMES = Object.keys(API_SCOPES) as ApiScope[]

const SCOPE_OF_ENDPOINT = new Map<string, ApiScope>(
  API_SCOPE_NAMES.flatMap((scope) => (API_SCOPES[scope].endpoints as readonly string[]).map((endpoint) => [endpoint, scope] as const)),
)

/**
 * The scope a call needs from a service credential, keyed like the permission table
 * (`GET /admin/users/:id`); undefined: no service credential may make it.
 */
export function scopeOf(endpoint: string): ApiScope | undefined {
  return SCOPE_OF_ENDPOINT.get(endpoint)
}

export function isApiScope(value: string): value is ApiScope {
  return Object.hasOwn(API_SCOPES, value)
}
