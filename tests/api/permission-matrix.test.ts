import crypto from 'node:crypto'
import { generateSync } from 'otplib'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Role } from '~shared/constants'
import { API_ACCESS, type ApiEndpoint } from '~shared/permissions'
import { hashToken } from '~server/auth/secure-token'
import { commitChange } from '~server/change'
import { createApiKey } from '~server/use-cases/applications/create-api-key'
import { createApplication } from '~server/use-cases/applications/create-application'
import { createIdentityProvider } from '~server/use-cases/identity-providers/create-identity-provider'
import { turnOffSecondFactors } from '~server/use-cases/two-factor/disable-two-factor'
import { createWebhook } from '~server/use-cases/webhooks/create-webhook'
import { editWebhook } from '~server/use-cases/webhooks/edit-webhook'
import { sendTestEvent } from '~server/use-cases/webhooks/send-test-event'
import { SoftwareAuthenticator } from '../support/software-authenticator'
import { useTestApp, type SignedIn, STRONG_PASSWORD, uniqueEmail } from '../support/test-app'
import { insertApplication, insertGrant } from './helpers/connected-apps'
import { dataUrl, pngImage } from './helpers/images'
import { quickSignIn, quickUser } from './helpers/users'

/**
 * Every signed-in devices, profile, picture, activity, administration, two-factor, passkey and connected apps call against every role and anonymous:
 * the answers below, written out by hand from the product's rules (not read from the permission
 * table the server uses, so a wrong edit of that table fails here). 200 (201 for an invitation or a new application) is success, 401 asks an
 * anonymous caller to sign in, 403 refuses a role. Unsafe methods also need the session's own
 * CSRF token.
 */

type Caller = 'anonymous' | Role

const MATRIX_APPLICATION = { name: 'Matrix App', type: 'confidential' as const, redirectUris: ['https://matrix.example.com/callback'] }
const MATRIX_PROVIDER = { kind: 'google' as const, name: 'Matrix Google', clientId: 'matrix-client', clientSecret: 'matrix-secret' }
const MATRIX_WEBHOOK = { url: 'http://127.0.0.1:9/matrix', events: ['user.created' as const] }
const CALLERS: Caller[] = ['anonymous', 'CLIENT', 'DEVELOPER', 'MODERATOR', 'ADMIN']

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  url: string
  body?: unknown
}

type Area = Extract<
  ApiEndpoint,
  | `${string} /auth/sessions${string}`
  | `${string} /users/${string}`
  | `${string} /activity`
  | `${string} /admin/${string}`
  | `${string} /auth/mfa${string}`
  | `${string} /auth/passkeys${string}`
  | `${string} /auth/applications${string}`
>
type Answer = 200 | 201 | 202 | 401 | 403

const EXPECTED: Record<Area, Record<Caller, Answer>> = {
  'GET /auth/sessions': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'DELETE /auth/sessions/:id': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'DELETE /auth/sessions': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'GET /users/profile': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'PUT /users/profile': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'PUT /users/change-password': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'POST /users/profile-picture': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'GET /users/pictures/:file': { anonymous: 200, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'GET /activity': { anonymous: 401, CLIENT: 403, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'GET /admin/activity-logs': { anonymous: 401, CLIENT: 403, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'GET /admin/users': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'GET /admin/users/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'PUT /admin/users/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'DELETE /admin/users/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'GET /admin/stats': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'GET /admin/users/export': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'GET /admin/activity-logs/export': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /admin/users': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 201 },
  'POST /admin/users/:id/invitation': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /admin/users/:id/password-reset': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'DELETE /admin/users/:id/sessions': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'DELETE /admin/users/:id/mfa': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'GET /admin/applications': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /admin/applications': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 201 },
  'GET /admin/applications/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'PUT /admin/applications/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'DELETE /admin/applications/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /admin/applications/:id/secret': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'GET /admin/identity-providers': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /admin/identity-providers': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 201 },
  'GET /admin/identity-providers/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'PUT /admin/identity-providers/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'DELETE /admin/identity-providers/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'GET /admin/applications/:id/keys': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /admin/applications/:id/keys': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 201 },
  'DELETE /admin/applications/:id/keys/:keyId': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'GET /admin/webhooks': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /admin/webhooks': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 201 },
  'PUT /admin/webhooks/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'DELETE /admin/webhooks/:id': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /admin/webhooks/:id/secret': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /admin/webhooks/:id/test': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 202 },
  'GET /admin/webhooks/:id/deliveries': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /admin/webhooks/:id/deliveries/:deliveryId/retry': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 202 },
  'GET /admin/events': { anonymous: 401, CLIENT: 403, DEVELOPER: 403, MODERATOR: 403, ADMIN: 200 },
  'POST /auth/passkeys/registration/options': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'POST /auth/passkeys/registration': { anonymous: 401, CLIENT: 201, DEVELOPER: 201, MODERATOR: 201, ADMIN: 201 },
  'GET /auth/passkeys': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'PATCH /auth/passkeys/:id': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'DELETE /auth/passkeys/:id': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'POST /auth/passkeys/authentication/options': { anonymous: 200, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'POST /auth/passkeys/authentication': { anonymous: 200, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'POST /auth/passkeys/confirmation/options': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'GET /auth/applications': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'DELETE /auth/applications/:id': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'GET /auth/mfa': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'POST /auth/mfa/totp/setup': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'POST /auth/mfa/totp/enable': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'POST /auth/mfa/recovery-codes': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
  'POST /auth/mfa/totp/disable': { anonymous: 401, CLIENT: 200, DEVELOPER: 200, MODERATOR: 200, ADMIN: 200 },
}

describe('permission matrix', () => {
  const t = useTestApp()
  const callers = {} as Record<Role, SignedIn>
  let picture = ''
  const authenticator = new SoftwareAuthenticator('http://app.test')
  /** A passkey sign-in's response, from a passkey of someone outside the matrix. */
  let passkeyHolder: SignedIn

  const post = (user: SignedIn, url: string, body?: unknown) =>
    t.request('POST', url, { token: user.accessToken, csrf: user.csrfToken, ...(body !== undefined ? { body } : {}) })
  /** A registration response answering the caller's own fresh challenge. */
  const registrationBody = async (user: SignedIn) => ({
    response: authenticator.create((await post(user, '/api/auth/passkeys/registration/options')).json().data),
  })
  /** A passkey of the caller's (anonymous callers are refused before it matters). */
  const passkeyOf = async (caller: Caller) => {
    if (caller === 'anonymous') return '00000000-0000-4000-8000-000000000000'
    return (await post(callers[caller], '/api/auth/passkeys/registration', await registrationBody(callers[caller]))).json().data.passkey.id as string
  }

  /** An application the caller has allowed (anonymous callers are refused before it matters). */
  const allowedApplicationOf = async (caller: Caller) => {
    const applicationId = await insertApplication(t, `Matrix app ${caller}`)
    if (caller !== 'anonymous') await insertGrant(t, { userId: callers[caller].id, applicationId })
    return applicationId
  }

  beforeAll(async () => {
    for (const role of ['CLIENT', 'DEVELOPER', 'MODERATOR', 'ADMIN'] as const) callers[role] = await quickSignIn(t, { role, name: `Matrix ${role}` })
    // A picture of someone outside the matrix, so no cell replaces it.
    const owner = await quickSignIn(t, { name: 'Picture Owner' })
    const uploaded = await t.request('POST', '/api/users/profile-picture', {
      token: owner.accessToken,
      csrf: owner.csrfToken,
      body: { profilePicture: dataUrl(await pngImage()) },
    })
    picture = uploaded.json().data.profilePicture
    passkeyHolder = await quickSignIn(t, { name: 'Passkey Holder' })
    await post(passkeyHolder, '/api/auth/passkeys/registration', await registrationBody(passkeyHolder))
  })

  /** A valid request for each call, so that an allowed caller really succeeds. */
  const calls: Record<Area, (caller: Caller) => Promise<Call>> = {
    'GET /auth/sessions': async () => ({ method: 'GET', url: '/api/auth/sessions' }),
    // Another session of the caller's own, signed in for the occasion.
    'DELETE /auth/sessions/:id': async (caller) => ({ method: 'DELETE', url: `/api/auth/sessions/${await otherSessionOf(caller)}` }),
    'DELETE /auth/sessions': async () => ({ method: 'DELETE', url: '/api/auth/sessions' }),
    'GET /users/profile': async () => ({ method: 'GET', url: '/api/users/profile' }),
    'PUT /users/profile': async () => ({ method: 'PUT', url: '/api/users/profile', body: { name: 'Matrix Renamed' } }),
    'PUT /users/change-password': async () => ({
      method: 'PUT',
      url: '/api/users/change-password',
      // The same new password each time: after the first change it is also the current one.
      body: { currentPassword: STRONG_PASSWORD, newPassword: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD },
    }),
    'POST /users/profile-picture': async () => ({
      method: 'POST',
      url: '/api/users/profile-picture',
      body: { profilePicture: dataUrl(await pngImage(32, 32)) },
    }),
    'GET /users/pictures/:file': async () => ({ method: 'GET', url: picture }),
    'GET /activity': async () => ({ method: 'GET', url: '/api/activity?page=1&limit=5' }),
    'GET /admin/activity-logs': async () => ({ method: 'GET', url: '/api/admin/activity-logs?search=matrix&activity=logged%20in' }),
    'GET /admin/users': async () => ({ method: 'GET', url: '/api/admin/users?search=matrix&role=CLIENT&status=ACTIVE' }),
    'GET /admin/users/:id': async () => ({ method: 'GET', url: `/api/admin/users/${callers.CLIENT.id}` }),
    'PUT /admin/users/:id': async () => ({ method: 'PUT', url: `/api/admin/users/${(await quickUser(t)).id}`, body: { role: 'MODERATOR' } }),
    'DELETE /admin/users/:id': async () => ({ method: 'DELETE', url: `/api/admin/users/${(await quickUser(t, { status: 'INACTIVE' })).id}` }),
    'GET /admin/stats': async () => ({ method: 'GET', url: '/api/admin/stats' }),
    'GET /admin/users/export': async () => ({ method: 'GET', url: '/api/admin/users/export?role=CLIENT&sort=name&order=asc&verified=true' }),
    'GET /admin/activity-logs/export': async () => ({ method: 'GET', url: '/api/admin/activity-logs/export?activity=logged%20in&from=2020-01-01' }),
    'POST /admin/users': async () => ({ method: 'POST', url: '/api/admin/users', body: { name: 'Matrix Invitee', email: uniqueEmail('invitee'), role: 'CLIENT' } }),
    'POST /admin/users/:id/invitation': async () => {
      // Someone who has not joined yet: an unverified address.
      const invitee = await quickUser(t)
      await t.ctx.db.updateTable('users').set({ email_verified_at: null }).where('id', '=', invitee.id).execute()
      return { method: 'POST', url: `/api/admin/users/${invitee.id}/invitation` }
    },
    'POST /admin/users/:id/password-reset': async () => ({ method: 'POST', url: `/api/admin/users/${(await quickUser(t)).id}/password-reset` }),
    'DELETE /admin/users/:id/sessions': async () => ({ method: 'DELETE', url: `/api/admin/users/${(await quickUser(t)).id}/sessions` }),
    'DELETE /admin/users/:id/mfa': async () => ({ method: 'DELETE', url: `/api/admin/users/${(await quickUser(t)).id}/mfa` }),
    'GET /admin/applications': async () => ({ method: 'GET', url: '/api/admin/applications' }),
    'POST /admin/applications': async () => ({ method: 'POST', url: '/api/admin/applications', body: MATRIX_APPLICATION }),
    'GET /admin/applications/:id': async () => ({ method: 'GET', url: `/api/admin/applications/${await applicationId()}` }),
    'PUT /admin/applications/:id': async () => ({ method: 'PUT', url: `/api/admin/applications/${await applicationId()}`, body: { name: 'Matrix App Renamed' } }),
    'DELETE /admin/applications/:id': async () => ({ method: 'DELETE', url: `/api/admin/applications/${await applicationId()}` }),
    'POST /admin/applications/:id/secret': async () => ({ method: 'POST', url: `/api/admin/applications/${await applicationId()}/secret` }),
    'GET /admin/identity-providers': async () => ({ method: 'GET', url: '/api/admin/identity-providers' }),
    'POST /admin/identity-providers': async () => ({ method: 'POST', url: '/api/admin/identity-providers', body: MATRIX_PROVIDER }),
    'GET /admin/identity-providers/:id': async () => ({ method: 'GET', url: `/api/admin/identity-providers/${await providerId()}` }),
    'PUT /admin/identity-providers/:id': async () => ({ method: 'PUT', url: `/api/admin/identity-providers/${await providerId()}`, body: { name: 'Matrix Renamed' } }),
    'DELETE /admin/identity-providers/:id': async () => ({ method: 'DELETE', url: `/api/admin/identity-providers/${await providerId()}` }),
    'GET /admin/applications/:id/keys': async () => ({ method: 'GET', url: `/api/admin/applications/${await serviceApplicationId()}/keys` }),
    'POST /admin/applications/:id/keys': async () => ({
      method: 'POST',
      url: `/api/admin/applications/${await serviceApplicationId()}/keys`,
      body: { name: 'Matrix key' },
    }),
    'DELETE /admin/applications/:id/keys/:keyId': async () => {
      const id = await serviceApplicationId()
      const { key } = await createApiKey(t.ctx, { actorId: callers.ADMIN.id, ip: '127.0.0.1' }, id, { name: 'Matrix key' })
      return { method: 'DELETE', url: `/api/admin/applications/${id}/keys/${key.id}` }
    },
    'GET /admin/webhooks': async () => ({ method: 'GET', url: '/api/admin/webhooks' }),
    'POST /admin/webhooks': async () => ({ method: 'POST', url: '/api/admin/webhooks', body: MATRIX_WEBHOOK }),
    'PUT /admin/webhooks/:id': async () => ({ method: 'PUT', url: `/api/admin/webhooks/${await webhookId()}`, body: { description: 'Renamed' } }),
    'DELETE /admin/webhooks/:id': async () => ({ method: 'DELETE', url: `/api/admin/webhooks/${await webhookId()}` }),
    'POST /admin/webhooks/:id/secret': async () => ({ method: 'POST', url: `/api/admin/webhooks/${await webhookId()}/secret` }),
    'POST /admin/webhooks/:id/test': async () => ({ method: 'POST', url: `/api/admin/webhooks/${await webhookId()}/test` }),
    'GET /admin/webhooks/:id/deliveries': async () => ({ method: 'GET', url: `/api/admin/webhooks/${await webhookId()}/deliveries?status=pending` }),
    'POST /admin/webhooks/:id/deliveries/:deliveryId/retry': async () => {
      const id = await webhookId()
      await sendTestEvent(t.ctx, { actorId: callers.ADMIN.id, ip: '127.0.0.1' }, id)
      const delivery = await t.ctx.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', id).executeTakeFirstOrThrow()
      return { method: 'POST', url: `/api/admin/webhooks/${id}/deliveries/${delivery.id}/retry` }
    },
    'GET /admin/events': async () => ({ method: 'GET', url: '/api/admin/events?limit=5&type=user.created' }),
    'POST /auth/passkeys/registration/options': async () => ({ method: 'POST', url: '/api/auth/passkeys/registration/options' }),
    'POST /auth/passkeys/registration': async (caller) => ({
      method: 'POST',
      url: '/api/auth/passkeys/registration',
      body: caller === 'anonymous' ? { response: {} } : await registrationBody(callers[caller]),
    }),
    'GET /auth/passkeys': async () => ({ method: 'GET', url: '/api/auth/passkeys' }),
    'GET /auth/applications': async () => ({ method: 'GET', url: '/api/auth/applications' }),
    'DELETE /auth/applications/:id': async (caller) => ({ method: 'DELETE', url: `/api/auth/applications/${await allowedApplicationOf(caller)}` }),
    'PATCH /auth/passkeys/:id': async (caller) => ({ method: 'PATCH', url: `/api/auth/passkeys/${await passkeyOf(caller)}`, body: { name: 'Matrix key' } }),
    'DELETE /auth/passkeys/:id': async (caller) => ({ method: 'DELETE', url: `/api/auth/passkeys/${await passkeyOf(caller)}` }),
    'POST /auth/passkeys/authentication/options': async () => ({ method: 'POST', url: '/api/auth/passkeys/authentication/options' }),
    'POST /auth/passkeys/authentication': async () => {
      const options = (await t.request('POST', '/api/auth/passkeys/authentication/options')).json().data
      return {
        method: 'POST',
        url: '/api/auth/passkeys/authentication',
        body: { response: authenticator.get(options, { credentialId: authenticator.credentials[0]!.id }) },
      }
    },
    'POST /auth/passkeys/confirmation/options': async () => ({ method: 'POST', url: '/api/auth/passkeys/confirmation/options' }),
    'GET /auth/mfa': async () => ({ method: 'GET', url: '/api/auth/mfa' }),
    'POST /auth/mfa/totp/setup': async () => ({ method: 'POST', url: '/api/auth/mfa/totp/setup', body: { password: STRONG_PASSWORD } }),
    // A setup waiting for its code (started afresh, so that the cell turns it on), and the code.
    'POST /auth/mfa/totp/enable': async (caller) => ({ method: 'POST', url: '/api/auth/mfa/totp/enable', body: { code: await pendingSetupCode(caller) } }),
    'POST /auth/mfa/recovery-codes': async (caller) => {
      await pendingSetupCode(caller, true)
      return { method: 'POST', url: '/api/auth/mfa/recovery-codes', body: { password: STRONG_PASSWORD } }
    },
    'POST /auth/mfa/totp/disable': async () => ({ method: 'POST', url: '/api/auth/mfa/totp/disable', body: { password: STRONG_PASSWORD } }),
  }

  /** A webhook endpoint of its own for each cell, disabled so that nothing is sent, made straight through the use cases. */
  async function webhookId(): Promise<string> {
    const action = { actorId: callers.ADMIN.id, ip: '127.0.0.1' }
    const created = await createWebhook(t.ctx, action, MATRIX_WEBHOOK)
    await editWebhook(t.ctx, action, created.webhook.id, { enabled: false })
    return created.webhook.id
  }

  /** A confidential application of its own for each cell, registered straight through the use case. */
  async function serviceApplicationId(): Promise<string> {
    const created = await createApplication(t.ctx, { actorId: callers.ADMIN.id, ip: '127.0.0.1' }, { name: 'Matrix Service', type: 'service', scopes: ['users:read'] })
    return created.application.id
  }

  async function applicationId(): Promise<string> {
    const created = await createApplication(t.ctx, { actorId: callers.ADMIN.id, ip: '127.0.0.1' }, { ...MATRIX_APPLICATION, type: 'confidential' })
    return created.application.id
  }

  /** An identity provider of its own for each cell, added straight through the use case. */
  async function providerId(): Promise<string> {
    return (await createIdentityProvider(t.ctx, { actorId: callers.ADMIN.id, ip: '127.0.0.1' }, MATRIX_PROVIDER)).id
  }

  /** Starts a setup for the caller (turning two-factor off first) and answers its current code; turns it on when asked. */
  async function pendingSetupCode(caller: Caller, turnOn = false): Promise<string> {
    if (caller === 'anonymous') return '123456'
    const user = callers[caller]
    await commitChange(t.ctx, (c) => turnOffSecondFactors(c, user.id))
    const setup = await t.request('POST', '/api/auth/mfa/totp/setup', { token: user.accessToken, csrf: user.csrfToken, body: { password: STRONG_PASSWORD } })
    const code = generateSync({ secret: setup.json().data.secret, epoch: Math.floor(t.clock.now().getTime() / 1000) })
    if (turnOn) await t.request('POST', '/api/auth/mfa/totp/enable', { token: user.accessToken, csrf: user.csrfToken, body: { code } })
    return code
  }

  async function otherSessionOf(caller: Caller): Promise<string> {
    if (caller === 'anonymous') return crypto.randomUUID()
    const user = callers[caller]
    const signedIn = await t.login(user.email, user.password)
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    const token = hashToken(signedIn.json().data.refreshToken)
    const row = await t.ctx.db.selectFrom('refresh_tokens').select('session_id').where('token_hash', '=', token).executeTakeFirstOrThrow()
    return row.session_id
  }

  const send = (call: Call, caller: Caller, csrf: 'own' | 'none' | 'foreign' = 'own') => {
    if (caller === 'anonymous') return t.request(call.method, call.url, call.body !== undefined ? { body: call.body } : {})
    const user = callers[caller]
    const csrfToken = csrf === 'own' ? user.csrfToken : csrf === 'foreign' ? callers[caller === 'ADMIN' ? 'CLIENT' : 'ADMIN'].csrfToken : undefined
    return t.request(call.method, call.url, {
      token: user.accessToken,
      ...(call.method !== 'GET' && csrfToken ? { csrf: csrfToken } : {}),
      ...(call.body !== undefined ? { body: call.body } : {}),
    })
  }

  it('covers every signed-in devices, two-factor, passkey, connected apps, profile, picture, activity and administration endpoint of the permission table', () => {
    const inTable = Object.keys(API_ACCESS).filter((key) => / \/(auth\/sessions|users|activity|admin|auth\/mfa|auth\/passkeys|auth\/applications)/.test(key))
    expect(Object.keys(calls).sort()).toEqual(inTable.sort())
    expect(Object.keys(EXPECTED).sort()).toEqual(inTable.sort())
  })

  const cells = (Object.keys(calls) as Area[]).flatMap((endpoint) => CALLERS.map((caller) => [endpoint, caller] as const))

  it.each(cells)('%s as %s', async (endpoint, caller) => {
    const expected = EXPECTED[endpoint][caller]
    const response = await send(await calls[endpoint](caller), caller)
    expect(response.statusCode, response.body).toBe(expected)
    if (expected === 200 || expected === 201 || expected === 202) {
      if (String(response.headers['content-type'] ?? '').startsWith('application/json')) expect(response.json().success).toBe(true)
    } else {
      expect(response.json()).toMatchObject({ success: false, code: expected === 401 ? 'AUTH_REQUIRED' : 'FORBIDDEN' })
    }
  })

  // Public calls take no session, so no CSRF token either.
  const unsafe = (Object.keys(calls) as Area[]).filter((endpoint) => !endpoint.startsWith('GET ') && EXPECTED[endpoint].anonymous === 401)
  const csrfCells = unsafe.flatMap((endpoint) =>
    (['CLIENT', 'ADMIN'] as const).flatMap((caller) => (['none', 'foreign'] as const).map((csrf) => [endpoint, caller, csrf] as const)),
  )

  it.each(csrfCells)('%s as %s with %s CSRF token is refused, changing nothing', async (endpoint, caller, csrf) => {
    const call = await calls[endpoint](caller)
    const before = await t.ctx.db.selectFrom('users').select(['id', 'name', 'role', 'status', 'picture_id', 'password_hash']).orderBy('id').execute()
    const response = await send(call, caller, csrf)
    expect(response.statusCode, response.body).toBe(403)
    if (EXPECTED[endpoint][caller] !== 403) expect(response.json().code).toBe('CSRF_INVALID')
    const after = await t.ctx.db.selectFrom('users').select(['id', 'name', 'role', 'status', 'picture_id', 'password_hash']).orderBy('id').execute()
    expect(after).toEqual(before)
  })
})
