import type { Role } from './constants'

/**
 * The one permission table (a service application's credential passes by the scope table beside
 * it, `scopes.ts`, never by this one). The server's guard reads
 * `API_ACCESS` for every request and refuses anything not listed (deny by default); the web app
 * reads `PAGE_ACCESS` for its route guard and its menu. Edit access here, and both follow.
 */

/** Who may do something: anyone, any signed-in user, or a list of roles. */
export type Access = 'public' | 'signed-in' | readonly Role[]

export const STAFF: readonly Role[] = ['ADMIN', 'DEVELOPER', 'MODERATOR']
export const ADMIN_ONLY: readonly Role[] = ['ADMIN']

/** Endpoints under /api, keyed by method and route pattern as the server declares them. */
export const API_ACCESS = {
  'POST /auth/register': 'public',
  'POST /auth/login': 'public',
  'GET /auth/me': 'signed-in',
  'GET /auth/verify-email/:token': 'public',
  'POST /auth/resend-verification': 'public',
  'POST /auth/forgot-password': 'public',
  'POST /auth/reset-password/:token': 'public',
  'POST /auth/accept-invite/:token': 'public',
  'POST /auth/refresh-token': 'public',
  'POST /auth/logout': 'signed-in',
  'POST /auth/logout-all': 'signed-in',
  'GET /auth/csrf-token': 'signed-in',
  'GET /auth/sessions': 'signed-in',
  'DELETE /auth/sessions': 'signed-in',
  'DELETE /auth/sessions/:id': 'signed-in',
  'POST /auth/passkeys/registration/options': 'signed-in',
  'POST /auth/passkeys/registration': 'signed-in',
  'GET /auth/passkeys': 'signed-in',
  'PATCH /auth/passkeys/:id': 'signed-in',
  'DELETE /auth/passkeys/:id': 'signed-in',
  'POST /auth/passkeys/authentication/options': 'public',
  'POST /auth/passkeys/authentication': 'public',
  'POST /auth/passkeys/confirmation/options': 'signed-in',
  'GET /auth/applications': 'signed-in',
  'DELETE /auth/applications/:id': 'signed-in',

  // A person's own data: all of it in one file, and deleting the account.
  'GET /auth/export': 'signed-in',
  'POST /auth/delete-account': 'signed-in',

  // Two-factor sign-in: the second step is public (it carries its mfaToken), the rest the owner's.
  'POST /auth/login/mfa': 'public',
  'GET /auth/mfa': 'signed-in',
  'POST /auth/mfa/totp/setup': 'signed-in',
  'POST /auth/mfa/totp/enable': 'signed-in',
  'POST /auth/mfa/totp/disable': 'signed-in',
  'POST /auth/mfa/recovery-codes': 'signed-in',

  // Sign in with Accounts: the steps of an app's sign-in on our pages, bound to the browser that
  // started it by the protocol engine's interaction cookie.
  'GET /oidc/interactions/:uid': 'public',
  'GET /oidc/interactions/:uid/details': 'public',
  'POST /oidc/interactions/:uid/login': 'signed-in',
  'POST /oidc/interactions/:uid/consent': 'signed-in',
  'POST /oidc/interactions/:uid/abort': 'public',

  'GET /users/profile': 'signed-in',
  'PUT /users/profile': 'signed-in',
  'PUT /users/change-password': 'signed-in',
  'POST /users/profile-picture': 'signed-in',
  'GET /users/pictures/:file': 'public',

  'GET /activity': STAFF,
  'GET /admin/activity-logs': STAFF,
  'GET /admin/users': ADMIN_ONLY,
  'GET /admin/users/:id': ADMIN_ONLY,
  'PUT /admin/users/:id': ADMIN_ONLY,
  'DELETE /admin/users/:id': ADMIN_ONLY,
  'POST /admin/users': ADMIN_ONLY,
  'POST /admin/users/:id/invitation': ADMIN_ONLY,
  'POST /admin/users/:id/password-reset': ADMIN_ONLY,
  'DELETE /admin/users/:id/sessions': ADMIN_ONLY,
  'DELETE /admin/users/:id/mfa': ADMIN_ONLY,
  'GET /admin/stats': ADMIN_ONLY,
  'GET /admin/users/export': ADMIN_ONLY,
  'GET /admin/activity-logs/export': ADMIN_ONLY,

  // The applications that sign people in with Accounts (OpenID Connect clients).
  'GET /admin/applications': ADMIN_ONLY,
  'POST /admin/applications': ADMIN_ONLY,
  'GET /admin/applications/:id': ADMIN_ONLY,
  'PUT /admin/applications/:id': ADMIN_ONLY,
  'DELETE /admin/applications/:id': ADMIN_ONLY,
  'POST /admin/applications/:id/secret': ADMIN_ONLY,
  'GET /admin/applications/:id/keys': ADMIN_ONLY,
  'POST /admin/applications/:id/keys': ADMIN_ONLY,
  'DELETE /admin/applications/:id/keys/:keyId': ADMIN_ONLY,

  // Signing in with an identity people already have (identity providers).
  'GET /admin/identity-providers': ADMIN_ONLY,
  'POST /admin/identity-providers': ADMIN_ONLY,
  'GET /admin/identity-providers/:id': ADMIN_ONLY,
  'PUT /admin/identity-providers/:id': ADMIN_ONLY,
  'DELETE /admin/identity-providers/:id': ADMIN_ONLY,
  'GET /auth/identity-providers': 'public',
  'GET /auth/identity-providers/discover': 'public',
  // The sign-in through a provider: its steps are bound to the browser by the transaction cookie.
  'GET /auth/federation/:id/start': 'public',
  'GET /auth/federation/:id/callback': 'public',
  // SAML: the response comes by a cross-site form post, matched to its request by InResponseTo.
  'POST /auth/federation/:id/saml': 'public',
  'GET /auth/federation/:id/saml/metadata': 'public',
  'POST /auth/federation/complete': 'public',
  'POST /auth/federation/link': 'signed-in',
  'GET /auth/identities': 'signed-in',
  'POST /auth/identities/:providerId/link': 'signed-in',
  'DELETE /auth/identities/:id': 'signed-in',
  // Webhooks, and the events feed a consumer catches up from (contract section 12).
  'GET /admin/webhooks': ADMIN_ONLY,
  'POST /admin/webhooks': ADMIN_ONLY,
  'PUT /admin/webhooks/:id': ADMIN_ONLY,
  'DELETE /admin/webhooks/:id': ADMIN_ONLY,
  'POST /admin/webhooks/:id/secret': ADMIN_ONLY,
  'POST /admin/webhooks/:id/test': ADMIN_ONLY,
  'GET /admin/webhooks/:id/deliveries': ADMIN_ONLY,
  'POST /admin/webhooks/:id/deliveries/:deliveryId/retry': ADMIN_ONLY,
  'GET /admin/events': ADMIN_ONLY,

  'GET /health': 'public',
  'GET /health/live': 'public',
  'GET /health/ready': 'public',

  // The API reference: the OpenAPI document and the page that reads it, with its assets.
  'GET /openapi.json': 'public',
  'GET /docs': 'public',
  'GET /docs/:file': 'public',
} as const satisfies Record<string, Access>

export type ApiEndpoint = keyof typeof API_ACCESS

/** Pages of the web app. */
export const PAGE_ACCESS = {
  '/dashboard': 'signed-in',
  '/profile': 'signed-in',
  '/settings': 'signed-in',
  '/debug': 'signed-in',
  '/my-activity': STAFF,
  '/admin': ADMIN_ONLY,
  '/admin/users': ADMIN_ONLY,
  '/admin/applications': ADMIN_ONLY,
  '/admin/webhooks': ADMIN_ONLY,
  '/admin/sign-in-methods': ADMIN_ONLY,
  '/admin/activity-logs': STAFF,
  '/developer': ['DEVELOPER'],
  '/moderator': ['MODERATOR'],
} as const satisfies Record<string, Access>

export type GuardedPage = keyof typeof PAGE_ACCESS

/** Whether a signed-in user with this role passes. `public` passes everyone. */
export function roleMayAccess(access: Access, role: Role | null | undefined): boolean {
  if (access === 'public') return true
  if (!role) return false
  if (access === 'signed-in') return true
  return access.includes(role)
}

/** Pages that only an ADMIN may open: the guard reports these before the role list. */
export function isAdminOnly(access: Access): boolean {
  return Array.isArray(access) && access.length === 1 && access[0] === 'ADMIN'
}
