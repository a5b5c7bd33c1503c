import { beforeAll, describe, expect, it } from 'vitest'
import { adminRuleMessages } from '~shared/schemas/admin'
import { type SignedIn, useTestApp } from '../support/test-app'
import { mailTo, resetLink, tokenOf } from './auth/helpers'
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

describe('both actions follow the edit rules', () => {
  it("are refused on one's own account with the spec's message, changing nothing", async () => {
    const entries = await countWhere(t, 'activities', { user_id: admin.id })
    expectFailure(await sendReset(admin.id), 403, adminRuleMessages.noSelfEdit, 'SELF_EDIT')
    expectFailure(await signOutAll(admin.id), 403, adminRuleMessages.noSelfEdit, 'SELF_EDIT')
    expect((await as(t, admin).get('/api/users/profile')).statusCode).toBe(200)
    expect(await countWhere(t, 'activities', { user_id: admin.id })).toBe(entries)
    expect(await mailTo(t, admin.email)).toEqual([])
  })

  it('answer 404 for an unknown or malformed id, never a database error', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid', "1' OR '1'='1", '0'.repeat(100)]) {
      expectFailure(await sendReset(id), 404)
      expectFailure(await signOutAll(id), 404)
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
