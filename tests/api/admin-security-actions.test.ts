import { beforeAll, describe, expect, it } from 'vitest'
import { adminRuleMessages } from '~shared/schemas/admin'
import { SoftwareAuthenticator } from '../support/software-authenticator'
import { type SignedIn, useTestApp } from '../support/test-app'
import { APP_ORIGIN, mailTo, resetLink, tokenOf } from './auth/helpers'
import { codeAt, passwordStep, secondStep, turnOnTwoFactor } from './auth/two-factor-helpers'
import { as, countWhere, expectFailure, expectSuccess } from './helpers/requests'
import { quickSignIn, quickUser } from './helpers/users'

const UNKNOWN_ID = '2f1b6a3e-7c4d-4e8f-9a0b-1c2d3e4f5a6b'
const NEW_PASSWORD = 'Admin-Sent-Link-2026!'

const t = useTestApp()

let admin: SignedIn
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
})

const sendReset = (id: string, who = admin) => as(t, who).post(`/api/admin/users/${id}/password-reset`, {})
const signOutAll = (id: string, who = admin) => as(t, who).delete(`/api/admin/users/${id}/sessions`)
const resetMfa = (id: string, who = admin) => as(t, who).delete(`/api/admin/users/${id}/mfa`)

describe('an admin sends a user a password reset link', () => {
  it('e-mails the section 3 reset link, which works once, and records who sent it to whom', async () => {
    const target = await quickSignIn(t, { name: 'Rita Reset' })
    const body = expectSuccess(await sendReset(target.id))
    expect(body.message).toBe('Password reset link sent')
    const token = tokenOf(await resetLink(t, target.email))
    // Nothing changes until the user follows the link: their session still works.
    expect((await as(t, target).get('/api/users/profile')).statusCode).toBe(200)
    const reset = await t.request('POST', `/api/auth/reset-password/${token}`, { body: { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD } })
    expect(reset.statusCode, reset.body).toBe(200)
    expect((await t.login(target.email, NEW_PASSWORD)).statusCode).toBe(200)
    const entry = await t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', target.id).where('activity', 'like', 'Sent%').executeTakeFirstOrThrow()
    expect(entry).toMatchObject({
      kind: 'reset',
      activity: `Sent password reset link to Rita Reset (${target.email})`,
      actor_id: admin.id,
      actor_name: 'Ada Admin',
      ip_address: '127.0.0.1',
    })
  })

  it('kills the older reset links of the user', async () => {
    const target = await quickUser(t)
    expectSuccess(await sendReset(target.id))
    const first = tokenOf(await resetLink(t, target.email))
    expectSuccess(await sendReset(target.id))
    const second = tokenOf(await resetLink(t, target.email))
    expect(second).not.toBe(first)
    const old = await t.request('POST', `/api/auth/reset-password/${first}`, { body: { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD } })
    expect(old.statusCode).toBe(400)
  })
})

describe('an admin signs a user out everywhere', () => {
  it('ends every session at once: the access tokens are refused on the next request, the refresh tokens are dead', async () => {
    const target = await quickSignIn(t, { name: 'Simon Signout' })
    const phone = await t.login(target.email, target.password)
    const phoneTokens = phone.json().data
    expect((await as(t, target).get('/api/users/profile')).statusCode).toBe(200)
    const body = expectSuccess(await signOutAll(target.id))
    expect(body.message).toBe('User signed out everywhere')
    expectFailure(await as(t, target).get('/api/users/profile'), 401, undefined, 'SESSION_ENDED')
    expectFailure(await t.request('GET', '/api/auth/me', { token: phoneTokens.accessToken }), 401, undefined, 'SESSION_ENDED')
    for (const refreshToken of [target.refreshToken, phoneTokens.refreshToken]) {
      expectFailure(await t.request('POST', '/api/auth/refresh-token', { body: { refreshToken } }), 401)
    }
    // The account itself is untouched: the user signs in again.
    expect((await t.login(target.email, target.password)).statusCode).toBe(200)
    expect((await mailTo(t, target.email)).map((mail) => mail.subject)).toContain('You were signed out of your account - Accounts')
    const entry = await t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', target.id).where('kind', '=', 'logged out').executeTakeFirstOrThrow()
    expect(entry).toMatchObject({ activity: `Logged out Simon Signout (${target.email}) everywhere`, actor_id: admin.id, actor_name: 'Ada Admin' })
  })

  it("leaves the admin's own sessions and other users' sessions alone", async () => {
    const target = await quickSignIn(t)
    const bystander = await quickSignIn(t)
    expectSuccess(await signOutAll(target.id))
    expect((await as(t, bystander).get('/api/users/profile')).statusCode).toBe(200)
    expect((await as(t, admin).get('/api/users/profile')).statusCode).toBe(200)
  })
})

describe("an admin resets a user's two-factor and passkeys (a lost phone)", () => {
  const mfaStatus = async (user: SignedIn) => {
    const response = await as(t, user).get('/api/auth/mfa')
    expect(response.statusCode, response.body).toBe(200)
    return response.json().data
  }
  const mfaEnabled = async (id: string) => (await t.ctx.db.selectFrom('users').select('mfa_enabled').where('id', '=', id).executeTakeFirstOrThrow()).mfa_enabled
  const passkeySignIn = async (authenticator: SoftwareAuthenticator) => {
    const options = (await t.request('POST', '/api/auth/passkeys/authentication/options')).json().data
    return t.request('POST', '/api/auth/passkeys/authentication', { body: { response: authenticator.get(options) } })
  }

  /** A signed-in user with the authenticator app on and one passkey that signs in. */
  async function securedUser(name: string) {
    const user = await quickSignIn(t, { name })
    const { secret } = await turnOnTwoFactor(t, user)
    const authenticator = new SoftwareAuthenticator(APP_ORIGIN)
    const options = (await as(t, user).post('/api/auth/passkeys/registration/options', undefined)).json().data
    const added = await as(t, user).post('/api/auth/passkeys/registration', { response: authenticator.create(options) })
    expect(added.statusCode, added.body).toBe(201)
    expect(await mfaStatus(user)).toEqual({ totp: true, recoveryCodesLeft: 10, passkeys: 1 })
    expect(await mfaEnabled(user.id)).toBe(true)
    expect((await passkeySignIn(authenticator)).statusCode).toBe(200)
    return { user, secret, authenticator }
  }

  it('turns two-factor off, removes every passkey, records who did it to whom and e-mails the user', async () => {
    const { user, secret, authenticator } = await securedUser('Lena Lostphone')
    // A sign-in waiting for its second step dies with the secret.
    const waiting = await passwordStep(t, user)
    const body = expectSuccess(await resetMfa(user.id))
    expect(body.message).toBe('Two-factor authentication and passkeys reset')

    expect(await mfaStatus(user)).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 })
    expect(await mfaEnabled(user.id)).toBe(false)
    expect(await countWhere(t, 'passkeys', { user_id: user.id })).toBe(0)
    // The password alone signs in now; the passkey and the waiting second step are refused.
    const signedIn = await t.login(user.email, user.password)
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    expect(signedIn.json().data).toEqual(expect.objectContaining({ accessToken: expect.any(String), user: expect.objectContaining({ id: user.id }) }))
    expect(signedIn.json().data.mfaRequired).toBeUndefined()
    expectFailure(await passkeySignIn(authenticator), 401, 'Invalid credentials')
    t.clock.advance(30)
    expectFailure(await secondStep(t, { mfaToken: waiting, code: codeAt(t, secret) }), 401)

    const entry = await t.ctx.db
      .selectFrom('activities')
      .selectAll()
      .where('user_id', '=', user.id)
      .where('activity', 'like', 'Reset two-factor%')
      .executeTakeFirstOrThrow()
    expect(entry).toMatchObject({
      kind: 'security',
      activity: `Reset two-factor authentication and passkeys of Lena Lostphone (${user.email})`,
      details: 'Two-factor authentication turned off, passkeys removed',
      actor_id: admin.id,
      actor_name: 'Ada Admin',
      ip_address: '127.0.0.1',
    })
    const notice = (await mailTo(t, user.email)).find((mail) => mail.subject === 'Two-factor authentication and passkeys were reset - Accounts')
    expect(notice).toBeDefined()
    expect(notice!.text).toContain('An administrator turned off two-factor authentication for your account and removed its passkeys')
    expect(notice!.text).toContain('Review your security settings: http://app.test/profile')
  })

  it("writes the notice in the language of the admin's request", async () => {
    const user = await quickSignIn(t, { name: 'Jeanne Sanstelephone' })
    await turnOnTwoFactor(t, user)
    expectSuccess(
      await t.request('DELETE', `/api/admin/users/${user.id}/mfa`, { token: admin.accessToken, csrf: admin.csrfToken, headers: { 'accept-language': 'fr-FR' } }),
    )
    const [notice] = (await mailTo(t, user.email)).filter((mail) => mail.subject.startsWith("L'authentification à deux facteurs et les clés"))
    expect(notice!.subject).toBe("L'authentification à deux facteurs et les clés d'accès ont été réinitialisées - Accounts")
    expect(notice!.text).toContain('Bonjour Jeanne Sanstelephone')
  })

  it('resets a user with only the authenticator app, or only passkeys, and says what it removed', async () => {
    const appOnly = await quickSignIn(t, { name: 'App Only' })
    await turnOnTwoFactor(t, appOnly)
    expectSuccess(await resetMfa(appOnly.id))
    expect(await mfaStatus(appOnly)).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 })
    expect(await countWhere(t, 'activities', { user_id: appOnly.id, details: 'Two-factor authentication turned off' })).toBe(1)

    const keyOnly = await quickSignIn(t, { name: 'Key Only' })
    const authenticator = new SoftwareAuthenticator(APP_ORIGIN)
    const options = (await as(t, keyOnly).post('/api/auth/passkeys/registration/options', undefined)).json().data
    expect((await as(t, keyOnly).post('/api/auth/passkeys/registration', { response: authenticator.create(options) })).statusCode).toBe(201)
    expectSuccess(await resetMfa(keyOnly.id))
    expect(await mfaStatus(keyOnly)).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 })
    expectFailure(await passkeySignIn(authenticator), 401)
    expect(await countWhere(t, 'activities', { user_id: keyOnly.id, details: 'Passkeys removed' })).toBe(1)
  })

  it('succeeds for a user with nothing to reset, changing, recording and sending nothing', async () => {
    const plain = await quickSignIn(t, { name: 'Plain Password' })
    const entries = await countWhere(t, 'activities', { user_id: plain.id })
    const mails = (await mailTo(t, plain.email)).length
    const body = expectSuccess(await resetMfa(plain.id))
    expect(body.message).toBe('The user had no two-factor authentication or passkeys to reset')
    expect(await countWhere(t, 'activities', { user_id: plain.id })).toBe(entries)
    expect(await mailTo(t, plain.email)).toHaveLength(mails)
    expect((await t.login(plain.email, plain.password)).statusCode).toBe(200)
  })

  it('is refused to anyone but an admin, changing nothing', async () => {
    const { user } = await securedUser('Still Secured')
    for (const role of ['CLIENT', 'DEVELOPER', 'MODERATOR'] as const) {
      expectFailure(await resetMfa(user.id, await quickSignIn(t, { role })), 403)
    }
    expectFailure(await t.request('DELETE', `/api/admin/users/${user.id}/mfa`), 401)
    // The CSRF token is needed too.
    expectFailure(await t.request('DELETE', `/api/admin/users/${user.id}/mfa`, { token: admin.accessToken }), 403)
    expect(await mfaStatus(user)).toEqual({ totp: true, recoveryCodesLeft: 10, passkeys: 1 })
  })
})

describe('the three actions follow the edit rules', () => {
  it("are refused on one's own account with the spec's message, changing nothing", async () => {
    const entries = await countWhere(t, 'activities', { user_id: admin.id })
    expectFailure(await sendReset(admin.id), 403, adminRuleMessages.noSelfEdit, 'SELF_EDIT')
    expectFailure(await signOutAll(admin.id), 403, adminRuleMessages.noSelfEdit, 'SELF_EDIT')
    expectFailure(await resetMfa(admin.id), 403, adminRuleMessages.noSelfEdit, 'SELF_EDIT')
    expect((await as(t, admin).get('/api/users/profile')).statusCode).toBe(200)
    expect(await countWhere(t, 'activities', { user_id: admin.id })).toBe(entries)
    expect(await mailTo(t, admin.email)).toEqual([])
  })

  it('answer 404 for an unknown or malformed id, never a database error', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid', "1' OR '1'='1", '0'.repeat(100)]) {
      expectFailure(await sendReset(id), 404)
      expectFailure(await signOutAll(id), 404)
      expectFailure(await resetMfa(id), 404)
    }
  })

  it('act on other admins too', async () => {
    const other = await quickSignIn(t, { role: 'ADMIN', name: 'Other Admin' })
    expectSuccess(await signOutAll(other.id))
    expectFailure(await as(t, other).get('/api/users/profile'), 401)
  })

  it('are refused to an admin demoted a moment ago', async () => {
    const demoted = await quickSignIn(t, { role: 'ADMIN', name: 'Soon Demoted' })
    const target = await quickUser(t)
    await t.ctx.db.updateTable('users').set({ role: 'CLIENT' }).where('id', '=', demoted.id).execute()
    expectFailure(await sendReset(target.id, demoted), 403)
    expectFailure(await signOutAll(target.id, demoted), 403)
    expectFailure(await resetMfa(target.id, demoted), 403)
  })

  it('refuse a body on the sign-out (none is taken) only when it is not JSON', async () => {
    const target = await quickUser(t)
    const response = await t.request('DELETE', `/api/admin/users/${target.id}/sessions`, {
      token: admin.accessToken,
      csrf: admin.csrfToken,
      payload: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expectFailure(response, 415)
  })
})
