import type { LightMyRequestResponse } from 'fastify'
import type { z } from 'zod'
import { type ApiEndpoint, API_ACCESS } from '~shared/permissions'
import { adminUpdateUserSchema, inviteUserSchema } from '~shared/schemas/admin'
import { createApiKeySchema } from '~shared/schemas/api-keys'
import { createApplicationSchema, updateApplicationSchema } from '~shared/schemas/applications'
import { createWebhookSchema, updateWebhookSchema } from '~shared/schemas/webhooks'
import { createIdentityProviderSchema, updateIdentityProviderSchema } from '~shared/schemas/identity-providers'
import { completeProviderSignInSchema, linkPendingIdentitySchema, startLinkSchema } from '~shared/schemas/federation'
import {
  acceptInvitationSchema,
  emailOnlySchema,
  loginSchema,
  refreshTokenSchema,
  registerSchema,
  resendVerificationSchema,
  resetPasswordSchema,
} from '~shared/schemas/auth'
import { passkeyAuthenticationSchema, passkeyRegistrationSchema, renamePasskeySchema } from '~shared/schemas/passkeys'
import { changePasswordSchema, profilePictureSchema, updateProfileSchema } from '~shared/schemas/profile'
import { deleteAccountSchema } from '~shared/schemas/own-data'
import { enableTotpSchema, passwordConfirmationSchema, secondStepSchema } from '~shared/schemas/two-factor'
import { STRONG_PASSWORD, type SignedIn, type TestApp, uniqueEmail } from '../../support/test-app'

/**
 * The API's endpoints as the attack suites walk them, taken from the permission table (every /api
 * route is in it, or the server refuses to start): for each one, who can call it, a concrete
 * address, and for those that take a body, its schema and a body that passes it. A test that
 * covers "every endpoint" takes its list from here, and `catalogueGaps()` fails when a route is
 * added to the table without being added here.
 */

export interface Callers {
  user: SignedIn
  admin: SignedIn
  /** An account the admin may edit (never the admin itself). */
  targetId: string
}

export interface Endpoint {
  key: ApiEndpoint
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Who the suites call it as: the permission table says who may. */
  as: 'anonymous' | 'user' | 'admin'
  path(callers: Callers): string
}

export interface BodyEndpoint extends Endpoint {
  method: 'POST' | 'PUT' | 'PATCH'
  schema: z.ZodObject
  /** A body that passes the schema (its effect, if any, is harmless: a failed sign-in, a no-op edit...). */
  valid(): Record<string, unknown>
}

/** A token of the right shape that was never issued. */
export const UNISSUED_TOKEN = 'A'.repeat(43)

const body = (endpoint: BodyEndpoint) => endpoint

/** A passkey response of the right shape that answers no challenge and no credential (refused after the checks). */
const UNANSWERED_PASSKEY = {
  id: 'AAAAAAAAAAAAAAAAAAAAAA',
  rawId: 'AAAAAAAAAAAAAAAAAAAAAA',
  type: 'public-key',
  clientExtensionResults: {},
}
/** An id of the right shape that no passkey has. */
export const UNKNOWN_PASSKEY_ID = '00000000-0000-4000-8000-000000000000'
/** A client id of the right shape that no application has: edits, secrets and deletes of it are 404s. */
export const UNKNOWN_APPLICATION_ID = 'app_AAAAAAAAAAAAAAAAAAAAAA'
/** An identity provider id nobody has: the admin calls on it answer 404 and change nothing. */
export const UNKNOWN_PROVIDER_ID = 'idp_AAAAAAAAAAAAAAAAAAAAAAAA'
export const UNKNOWN_WEBHOOK_ID = '00000000-0000-4000-8000-000000000000'

export const BODY_ENDPOINTS: BodyEndpoint[] = [
  body({
    key: 'POST /auth/register',
    method: 'POST',
    as: 'anonymous',
    path: () => '/api/auth/register',
    schema: registerSchema,
    valid: () => ({ name: 'Valid Visitor', email: uniqueEmail('attack'), phone: '+1 555 0100', password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD }),
  }),
  body({
    key: 'POST /auth/login',
    method: 'POST',
    as: 'anonymous',
    path: () => '/api/auth/login',
    schema: loginSchema,
    valid: () => ({ email: uniqueEmail('nobody'), password: 'Not-Anyones-Password-1!' }),
  }),
  body({
    key: 'POST /auth/resend-verification',
    method: 'POST',
    as: 'anonymous',
    path: () => '/api/auth/resend-verification',
    schema: resendVerificationSchema,
    valid: () => ({ email: uniqueEmail('nobody') }),
  }),
  body({
    key: 'POST /auth/forgot-password',
    method: 'POST',
    as: 'anonymous',
    path: () => '/api/auth/forgot-password',
    schema: emailOnlySchema,
    valid: () => ({ email: uniqueEmail('nobody') }),
  }),
  body({
    key: 'POST /auth/reset-password/:token',
    method: 'POST',
    as: 'anonymous',
    path: () => `/api/auth/reset-password/${UNISSUED_TOKEN}`,
    schema: resetPasswordSchema,
    valid: () => ({ password: 'Fresh-Start-2026!', confirmPassword: 'Fresh-Start-2026!' }),
  }),
  body({
    key: 'POST /auth/accept-invite/:token',
    method: 'POST',
    as: 'anonymous',
    path: () => `/api/auth/accept-invite/${UNISSUED_TOKEN}`,
    schema: acceptInvitationSchema,
    valid: () => ({ password: 'Fresh-Start-2026!', confirmPassword: 'Fresh-Start-2026!' }),
  }),
  body({
    key: 'POST /auth/refresh-token',
    method: 'POST',
    as: 'anonymous',
    path: () => '/api/auth/refresh-token',
    schema: refreshTokenSchema,
    valid: () => ({ refreshToken: UNISSUED_TOKEN }),
  }),
  body({
    key: 'POST /auth/login/mfa',
    method: 'POST',
    as: 'anonymous',
    path: () => '/api/auth/login/mfa',
    schema: secondStepSchema,
    // An mfaToken never issued: 401 "Invalid code".
    valid: () => ({ mfaToken: UNISSUED_TOKEN, code: '123456' }),
  }),
  // A wrong password, or no setup waiting for a code: refused after the check.
  body({
    key: 'POST /auth/mfa/totp/setup',
    method: 'POST',
    as: 'user',
    path: () => '/api/auth/mfa/totp/setup',
    schema: passwordConfirmationSchema,
    valid: () => ({ password: 'Not-The-Current-One-1!' }),
  }),
  body({
    key: 'POST /auth/mfa/totp/enable',
    method: 'POST',
    as: 'user',
    path: () => '/api/auth/mfa/totp/enable',
    schema: enableTotpSchema,
    valid: () => ({ code: '123456' }),
  }),
  body({
    key: 'POST /auth/mfa/totp/disable',
    method: 'POST',
    as: 'user',
    path: () => '/api/auth/mfa/totp/disable',
    schema: passwordConfirmationSchema,
    valid: () => ({ password: 'Not-The-Current-One-1!' }),
  }),
  body({
    key: 'POST /auth/mfa/recovery-codes',
    method: 'POST',
    as: 'user',
    path: () => '/api/auth/mfa/recovery-codes',
    schema: passwordConfirmationSchema,
    valid: () => ({ password: 'Not-The-Current-One-1!' }),
  }),
  // A wrong password: the deletion is refused after the check, whatever else is sent.
  body({
    key: 'POST /auth/delete-account',
    method: 'POST',
    as: 'user',
    path: () => '/api/auth/delete-account',
    schema: deleteAccountSchema,
    valid: () => ({ password: 'Not-The-Current-One-1!' }),
  }),
  body({
    key: 'PUT /users/profile',
    method: 'PUT',
    as: 'user',
    path: () => '/api/users/profile',
    schema: updateProfileSchema,
    valid: () => ({ name: 'Valid Name', phone: '+1 555 0100' }),
  }),
  body({
    key: 'PUT /users/change-password',
    method: 'PUT',
    as: 'user',
    path: () => '/api/users/change-password',
    schema: changePasswordSchema,
    // A wrong current password: the change is refused after the check, whatever else is sent.
    valid: () => ({ currentPassword: 'Not-The-Current-One-1!', newPassword: 'Tangerine-Kettle-42%', confirmPassword: 'Tangerine-Kettle-42%' }),
  }),
  body({
    key: 'POST /users/profile-picture',
    method: 'POST',
    as: 'user',
    path: () => '/api/users/profile-picture',
    schema: profilePictureSchema,
    valid: () => ({ profilePicture: 'data:image/png;base64,AAAA' }),
  }),
  body({
    key: 'POST /auth/passkeys/registration',
    method: 'POST',
    as: 'user',
    path: () => '/api/auth/passkeys/registration',
    schema: passkeyRegistrationSchema,
    valid: () => ({ response: { ...UNANSWERED_PASSKEY, response: { clientDataJSON: 'e30', attestationObject: 'oA' } }, name: 'Laptop' }),
  }),
  body({
    key: 'POST /auth/passkeys/authentication',
    method: 'POST',
    as: 'anonymous',
    path: () => '/api/auth/passkeys/authentication',
    schema: passkeyAuthenticationSchema,
    valid: () => ({ response: { ...UNANSWERED_PASSKEY, response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' } } }),
  }),
  body({
    key: 'PATCH /auth/passkeys/:id',
    method: 'PATCH',
    as: 'user',
    path: () => `/api/auth/passkeys/${UNKNOWN_PASSKEY_ID}`,
    schema: renamePasskeySchema,
    valid: () => ({ name: 'Laptop' }),
  }),
  body({
    key: 'PUT /admin/users/:id',
    method: 'PUT',
    as: 'admin',
    path: ({ targetId }) => `/api/admin/users/${targetId}`,
    schema: adminUpdateUserSchema,
    valid: () => ({ name: 'Edited Name', phone: '+1 555 0199', role: 'CLIENT', status: 'ACTIVE' }),
  }),
  body({
    key: 'POST /admin/users',
    method: 'POST',
    as: 'admin',
    path: () => '/api/admin/users',
    schema: inviteUserSchema,
    // Each call invites a new address: an unverified account nobody can sign in to.
    valid: () => ({ name: 'Invited Person', email: uniqueEmail('invitee'), role: 'CLIENT', phone: '+1 555 0123' }),
  }),
  body({
    key: 'POST /admin/applications',
    method: 'POST',
    as: 'admin',
    path: () => '/api/admin/applications',
    schema: createApplicationSchema,
    // Each call registers an application nobody signs in to.
    valid: () => ({
      name: 'Attack Suite App',
      type: 'confidential',
      redirectUris: ['https://app.example.com/callback'],
      postLogoutRedirectUris: ['https://app.example.com/'],
      backchannelLogoutUri: 'https://app.example.com/logout',
      allowedRoles: ['CLIENT'],
      firstParty: false,
    }),
  }),
  body({
    key: 'PUT /admin/applications/:id',
    method: 'PUT',
    as: 'admin',
    path: () => `/api/admin/applications/${UNKNOWN_APPLICATION_ID}`,
    schema: updateApplicationSchema,
    valid: () => ({
      name: 'Edited App',
      type: 'confidential',
      redirectUris: ['http://localhost:3000/callback'],
      postLogoutRedirectUris: ['http://127.0.0.1:3000/'],
      backchannelLogoutUri: 'http://[::1]:3000/logout',
      allowedRoles: ['ADMIN', 'CLIENT'],
      firstParty: true,
      enabled: true,
    }),
  }),
  body({
    key: 'POST /admin/identity-providers',
    method: 'POST',
    as: 'admin',
    path: () => '/api/admin/identity-providers',
    schema: createIdentityProviderSchema,
    // Each call adds a provider nobody signs in with (a preset: no discovery to reach).
    valid: () => ({
      kind: 'microsoft',
      name: 'Attack Suite Entra',
      tenant: 'organizations',
      clientId: 'attack-suite-client',
      clientSecret: 'attack-suite-secret',
      scopes: ['openid', 'email'],
      emailDomains: [],
      trustEmail: false,
      allowSignUp: false,
      defaultRole: 'CLIENT',
      roleRules: [{ claim: 'groups', value: 'staff', role: 'DEVELOPER' }],
      syncRoles: false,
      enabled: true,
      showOnSignIn: false,
    }),
  }),
  body({
    key: 'POST /admin/applications/:id/keys',
    method: 'POST',
    as: 'admin',
    path: () => `/api/admin/applications/${UNKNOWN_APPLICATION_ID}/keys`,
    schema: createApiKeySchema,
    valid: () => ({ name: 'Attack Suite Key', expiresAt: '2099-01-01T00:00:00Z' }),
  }),
  body({
    key: 'POST /admin/webhooks',
    method: 'POST',
    as: 'admin',
    path: () => '/api/admin/webhooks',
    schema: createWebhookSchema,
    // Each call adds an endpoint for an event nothing in the suites sends.
    valid: () => ({ url: 'https://receiver.example.com/hooks', events: ['webhook.test'], description: 'Attack suite' }),
  }),
  body({
    key: 'PUT /admin/webhooks/:id',
    method: 'PUT',
    as: 'admin',
    path: () => `/api/admin/webhooks/${UNKNOWN_WEBHOOK_ID}`,
    schema: updateWebhookSchema,
    valid: () => ({ url: 'https://receiver.example.com/other', events: ['*'], description: 'Edited', enabled: false }),
  }),
  body({
    key: 'PUT /admin/identity-providers/:id',
    method: 'PUT',
    as: 'admin',
    path: () => `/api/admin/identity-providers/${UNKNOWN_PROVIDER_ID}`,
    schema: updateIdentityProviderSchema,
    valid: () => ({ name: 'Edited Provider', enabled: false, allowSignUp: true, defaultRole: 'DEVELOPER', syncRoles: true }),
  }),
  // Without the browser's transaction cookie, a handoff or link token is worth nothing: 401, nothing changes.
  body({
    key: 'POST /auth/federation/complete',
    method: 'POST',
    as: 'anonymous',
    path: () => '/api/auth/federation/complete',
    schema: completeProviderSignInSchema,
    valid: () => ({ handoff: UNISSUED_TOKEN }),
  }),
  // A provider nobody has, after a wrong password: the password is checked first (400), nothing starts.
  body({
    key: 'POST /auth/identities/:providerId/link',
    method: 'POST',
    as: 'user',
    path: () => `/api/auth/identities/${UNKNOWN_PROVIDER_ID}/link`,
    schema: startLinkSchema,
    valid: () => ({ password: 'Not-The-Password-1!' }),
  }),
  body({
    key: 'POST /auth/federation/link',
    method: 'POST',
    as: 'user',
    path: () => '/api/auth/federation/link',
    schema: linkPendingIdentitySchema,
    valid: () => ({ linkToken: UNISSUED_TOKEN }),
  }),
]

/** POST routes that take no body: anything sent to them is still parsed (and refused) first. */
export const BODILESS_POSTS: Endpoint[] = [
  { key: 'POST /auth/logout', method: 'POST', as: 'user', path: () => '/api/auth/logout' },
  { key: 'POST /auth/logout-all', method: 'POST', as: 'user', path: () => '/api/auth/logout-all' },
  // The target has joined (verified address): a new invitation is refused (409), nothing is sent.
  { key: 'POST /admin/users/:id/invitation', method: 'POST', as: 'admin', path: ({ targetId }) => `/api/admin/users/${targetId}/invitation` },
  // Mails the target a reset link; their password and sessions stay as they are.
  { key: 'POST /admin/users/:id/password-reset', method: 'POST', as: 'admin', path: ({ targetId }) => `/api/admin/users/${targetId}/password-reset` },
  { key: 'POST /auth/passkeys/registration/options', method: 'POST', as: 'user', path: () => '/api/auth/passkeys/registration/options' },
  { key: 'POST /auth/passkeys/authentication/options', method: 'POST', as: 'anonymous', path: () => '/api/auth/passkeys/authentication/options' },
  { key: 'POST /auth/passkeys/confirmation/options', method: 'POST', as: 'user', path: () => '/api/auth/passkeys/confirmation/options' },
  { key: 'POST /admin/applications/:id/secret', method: 'POST', as: 'admin', path: () => `/api/admin/applications/${UNKNOWN_APPLICATION_ID}/secret` },
]

export const OTHER_ENDPOINTS: Endpoint[] = [
  { key: 'GET /auth/me', method: 'GET', as: 'user', path: () => '/api/auth/me' },
  { key: 'GET /auth/sessions', method: 'GET', as: 'user', path: () => '/api/auth/sessions' },
  // An id nobody has: the same 404 as another user's session, so walking the catalogue ends nothing.
  { key: 'DELETE /auth/sessions/:id', method: 'DELETE', as: 'user', path: () => '/api/auth/sessions/00000000-0000-4000-8000-000000000000' },
  // Ends the caller's other sessions; the suites sign the caller in once, so there are none.
  { key: 'DELETE /auth/sessions', method: 'DELETE', as: 'user', path: () => '/api/auth/sessions' },
  // An app's sign-in steps: without the interaction cookie of the browser that started one, nothing is found.
  { key: 'GET /oidc/interactions/:uid', method: 'GET', as: 'anonymous', path: () => '/api/oidc/interactions/unknown-interaction' },
  { key: 'GET /oidc/interactions/:uid/details', method: 'GET', as: 'anonymous', path: () => '/api/oidc/interactions/unknown-interaction/details' },
  { key: 'POST /oidc/interactions/:uid/login', method: 'POST', as: 'user', path: () => '/api/oidc/interactions/unknown-interaction/login' },
  { key: 'POST /oidc/interactions/:uid/consent', method: 'POST', as: 'user', path: () => '/api/oidc/interactions/unknown-interaction/consent' },
  { key: 'POST /oidc/interactions/:uid/abort', method: 'POST', as: 'anonymous', path: () => '/api/oidc/interactions/unknown-interaction/abort' },
  { key: 'GET /auth/verify-email/:token', method: 'GET', as: 'anonymous', path: () => `/api/auth/verify-email/${UNISSUED_TOKEN}` },
  { key: 'GET /auth/csrf-token', method: 'GET', as: 'user', path: () => '/api/auth/csrf-token' },
  { key: 'GET /auth/mfa', method: 'GET', as: 'user', path: () => '/api/auth/mfa' },
  { key: 'GET /auth/passkeys', method: 'GET', as: 'user', path: () => '/api/auth/passkeys' },
  { key: 'DELETE /auth/passkeys/:id', method: 'DELETE', as: 'user', path: () => `/api/auth/passkeys/${UNKNOWN_PASSKEY_ID}` },
  { key: 'GET /auth/applications', method: 'GET', as: 'user', path: () => '/api/auth/applications' },
  // An application nobody allowed: a 404, so walking the catalogue takes no access away.
  { key: 'DELETE /auth/applications/:id', method: 'DELETE', as: 'user', path: () => '/api/auth/applications/no-such-application' },
  // The caller's own data, downloaded: it writes an activity entry and changes nothing else.
  { key: 'GET /auth/export', method: 'GET', as: 'user', path: () => '/api/auth/export' },
  { key: 'GET /users/profile', method: 'GET', as: 'user', path: () => '/api/users/profile' },
  { key: 'GET /users/pictures/:file', method: 'GET', as: 'anonymous', path: () => '/api/users/pictures/AAAAAAAAAAAAAAAAAAAAAA.webp' },
  { key: 'GET /activity', method: 'GET', as: 'admin', path: () => '/api/activity' },
  { key: 'GET /admin/activity-logs', method: 'GET', as: 'admin', path: () => '/api/admin/activity-logs' },
  { key: 'GET /admin/users', method: 'GET', as: 'admin', path: () => '/api/admin/users' },
  { key: 'GET /admin/users/export', method: 'GET', as: 'admin', path: () => '/api/admin/users/export' },
  { key: 'GET /admin/activity-logs/export', method: 'GET', as: 'admin', path: () => '/api/admin/activity-logs/export' },
  { key: 'GET /admin/users/:id', method: 'GET', as: 'admin', path: ({ targetId }) => `/api/admin/users/${targetId}` },
  // The target is ACTIVE: the delete is refused (409), so walking the catalogue deletes nobody.
  { key: 'DELETE /admin/users/:id', method: 'DELETE', as: 'admin', path: ({ targetId }) => `/api/admin/users/${targetId}` },
  { key: 'GET /admin/stats', method: 'GET', as: 'admin', path: () => '/api/admin/stats' },
  { key: 'GET /admin/applications', method: 'GET', as: 'admin', path: () => '/api/admin/applications' },
  { key: 'GET /admin/applications/:id', method: 'GET', as: 'admin', path: () => `/api/admin/applications/${UNKNOWN_APPLICATION_ID}` },
  { key: 'DELETE /admin/applications/:id', method: 'DELETE', as: 'admin', path: () => `/api/admin/applications/${UNKNOWN_APPLICATION_ID}` },
  // Ends the target's sessions (the target is nobody's caller in the suites).
  { key: 'DELETE /admin/users/:id/sessions', method: 'DELETE', as: 'admin', path: ({ targetId }) => `/api/admin/users/${targetId}/sessions` },
  // Turns the target's two-factor off and removes its passkeys: the target has none, so nothing changes.
  { key: 'DELETE /admin/users/:id/mfa', method: 'DELETE', as: 'admin', path: ({ targetId }) => `/api/admin/users/${targetId}/mfa` },
  { key: 'GET /admin/applications/:id/keys', method: 'GET', as: 'admin', path: () => `/api/admin/applications/${UNKNOWN_APPLICATION_ID}/keys` },
  {
    key: 'DELETE /admin/applications/:id/keys/:keyId',
    method: 'DELETE',
    as: 'admin',
    path: () => `/api/admin/applications/${UNKNOWN_APPLICATION_ID}/keys/${UNKNOWN_WEBHOOK_ID}`,
  },
  { key: 'GET /admin/webhooks', method: 'GET', as: 'admin', path: () => '/api/admin/webhooks' },
  { key: 'DELETE /admin/webhooks/:id', method: 'DELETE', as: 'admin', path: () => `/api/admin/webhooks/${UNKNOWN_WEBHOOK_ID}` },
  { key: 'POST /admin/webhooks/:id/secret', method: 'POST', as: 'admin', path: () => `/api/admin/webhooks/${UNKNOWN_WEBHOOK_ID}/secret` },
  { key: 'POST /admin/webhooks/:id/test', method: 'POST', as: 'admin', path: () => `/api/admin/webhooks/${UNKNOWN_WEBHOOK_ID}/test` },
  { key: 'GET /admin/webhooks/:id/deliveries', method: 'GET', as: 'admin', path: () => `/api/admin/webhooks/${UNKNOWN_WEBHOOK_ID}/deliveries` },
  {
    key: 'POST /admin/webhooks/:id/deliveries/:deliveryId/retry',
    method: 'POST',
    as: 'admin',
    path: () => `/api/admin/webhooks/${UNKNOWN_WEBHOOK_ID}/deliveries/${UNKNOWN_WEBHOOK_ID}/retry`,
  },
  { key: 'GET /admin/events', method: 'GET', as: 'admin', path: () => '/api/admin/events' },
  { key: 'GET /admin/identity-providers', method: 'GET', as: 'admin', path: () => '/api/admin/identity-providers' },
  { key: 'GET /admin/identity-providers/:id', method: 'GET', as: 'admin', path: () => `/api/admin/identity-providers/${UNKNOWN_PROVIDER_ID}` },
  { key: 'DELETE /admin/identity-providers/:id', method: 'DELETE', as: 'admin', path: () => `/api/admin/identity-providers/${UNKNOWN_PROVIDER_ID}` },
  { key: 'GET /auth/identity-providers', method: 'GET', as: 'anonymous', path: () => '/api/auth/identity-providers' },
  { key: 'GET /auth/identity-providers/discover', method: 'GET', as: 'anonymous', path: () => '/api/auth/identity-providers/discover?email=someone%40example.com' },
  // A provider nobody has, and a callback without a transaction: both send the browser back to the sign-in page.
  { key: 'GET /auth/federation/:id/start', method: 'GET', as: 'anonymous', path: () => `/api/auth/federation/${UNKNOWN_PROVIDER_ID}/start` },
  { key: 'GET /auth/federation/:id/callback', method: 'GET', as: 'anonymous', path: () => `/api/auth/federation/${UNKNOWN_PROVIDER_ID}/callback?code=x&state=y` },
  // A SAML response for a provider nobody has: the browser goes back to the sign-in page.
  {
    key: 'POST /auth/federation/:id/saml',
    method: 'POST',
    as: 'anonymous',
    path: () => `/api/auth/federation/${UNKNOWN_PROVIDER_ID}/saml`,
  },
  { key: 'GET /auth/federation/:id/saml/metadata', method: 'GET', as: 'anonymous', path: () => `/api/auth/federation/${UNKNOWN_PROVIDER_ID}/saml/metadata` },
  { key: 'GET /auth/identities', method: 'GET', as: 'user', path: () => '/api/auth/identities' },
  { key: 'DELETE /auth/identities/:id', method: 'DELETE', as: 'user', path: () => '/api/auth/identities/00000000-0000-4000-8000-000000000000' },
  { key: 'GET /health', method: 'GET', as: 'anonymous', path: () => '/api/health' },
  { key: 'GET /health/live', method: 'GET', as: 'anonymous', path: () => '/api/health/live' },
  { key: 'GET /health/ready', method: 'GET', as: 'anonymous', path: () => '/api/health/ready' },
  { key: 'GET /openapi.json', method: 'GET', as: 'anonymous', path: () => '/api/openapi.json' },
  { key: 'GET /docs', method: 'GET', as: 'anonymous', path: () => '/api/docs' },
  { key: 'GET /docs/:file', method: 'GET', as: 'anonymous', path: () => '/api/docs/reference.js' },
]

export const ALL_ENDPOINTS: Endpoint[] = [...BODY_ENDPOINTS, ...BODILESS_POSTS, ...OTHER_ENDPOINTS]

/** Routes of the permission table that the catalogue does not know (should be none). */
export function catalogueGaps(): string[] {
  const known = new Set(ALL_ENDPOINTS.map((endpoint) => endpoint.key))
  return Object.keys(API_ACCESS).filter((key) => !known.has(key as ApiEndpoint))
}

export interface SendOptions {
  /** A JSON value, serialised. */
  body?: unknown
  /** A raw body, sent as it is. */
  payload?: string | Buffer
  contentType?: string
  headers?: Record<string, string>
  /** Leave out the bearer token and the CSRF token even where the endpoint needs them. */
  anonymous?: boolean
}

/** Calls an endpoint as the caller it needs, with the session's bearer and CSRF tokens. */
export function send(t: TestApp, endpoint: Endpoint, callers: Callers, options: SendOptions = {}): Promise<LightMyRequestResponse> {
  const caller = options.anonymous || endpoint.as === 'anonymous' ? undefined : callers[endpoint.as]
  const headers: Record<string, string> = { ...options.headers }
  if (options.contentType) headers['content-type'] = options.contentType
  else if (options.payload !== undefined || options.body !== undefined) headers['content-type'] ??= 'application/json'
  return t.request(endpoint.method, endpoint.path(callers), {
    headers,
    ...(caller ? { token: caller.accessToken, ...(endpoint.method === 'GET' ? {} : { csrf: caller.csrfToken }) } : {}),
    ...(options.payload !== undefined ? { payload: options.payload } : options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
  })
}
