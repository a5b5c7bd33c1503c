import { describe, expect, it } from 'vitest'
import { useTestApp, uniqueEmail } from '../../support/test-app'
import {
  activitiesOf,
  expectFailure,
  expectFieldError,
  forgotPassword,
  mailTo,
  me,
  refresh,
  resetLink,
  resetPassword,
  signInAs,
  tokenOf,
  withoutRequestId,
} from './helpers'

const NEW_PASSWORD = 'Fresh-Start-2026!'
const INVALID_LINK = 'Invalid or expired reset link'

// One application for the whole file: each story uses accounts of its own.
const t = useTestApp()

describe('a user who forgot their password asks for a link', () => {
  it('gets the same answer whether or not the address has an account; only an account gets mail', async () => {
    const user = await t.createUser()
    const unknown = uniqueEmail('nobody')
    const forKnown = await forgotPassword(t, user.email)
    const forUnknown = await forgotPassword(t, unknown)

    expect(forKnown.statusCode).toBe(200)
    expect(forKnown.json()).toEqual({ success: true, message: expect.any(String) })
    expect(forUnknown.statusCode).toBe(200)
    expect(withoutRequestId(forUnknown)).toEqual(withoutRequestId(forKnown))

    expect((await mailTo(t, user.email)).map((m) => m.subject)).toEqual(['Reset your password - Accounts'])
    expect(await mailTo(t, unknown)).toEqual([])
  })

  it('receives a link to the web app built from APP_URL, whatever Host the request named', async () => {
    const user = await t.createUser()
    await t.request('POST', '/api/auth/forgot-password', {
      body: { email: user.email.toUpperCase() },
      headers: { host: '127.0.0.1:8123', 'x-forwarded-host': 'evil.example' },
    })
    const link = await resetLink(t, user.email)
    expect(`${link.origin}${link.pathname}`).toBe('http://app.test/reset-password')
    tokenOf(link)
    const text = (await mailTo(t, user.email))[0]!.text
    expect(text).not.toContain('evil.example')
    expect(text).not.toContain('127.0.0.1:8123')
  })

  it('must give a well-formed address', async () => {
    expectFieldError(await forgotPassword(t, 'not-an-address'), 'email', 'Invalid email address')
    expectFieldError(await t.request('POST', '/api/auth/forgot-password', { body: {} }), 'email', 'Invalid email address')
  })
})

describe('a user resets their password through the link', () => {
  it('sets the new password, and the old one stops working', async () => {
    const user = await t.createUser()
    await forgotPassword(t, user.email)
    const token = tokenOf(await resetLink(t, user.email))

    const response = await resetPassword(t, token, NEW_PASSWORD)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ success: true, message: 'Password reset successfully!' })

    expect((await t.login(user.email, NEW_PASSWORD)).statusCode).toBe(200)
    expectFailure(await t.login(user.email, user.password), 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
  })

  it('ends every session of the user, and tells them by e-mail', async () => {
    const user = await t.createUser()
    const laptop = await signInAs(t, user)
    const phone = await signInAs(t, user)
    await forgotPassword(t, user.email)
    await resetPassword(t, tokenOf(await resetLink(t, user.email)), NEW_PASSWORD)

    for (const session of [laptop, phone]) {
      expectFailure(await me(t, session.accessToken), 401, 'SESSION_ENDED')
      expectFailure(await refresh(t, session.refreshToken), 401, 'REFRESH_INVALID')
    }
    const mails = await mailTo(t, user.email)
    expect(mails.map((m) => m.subject)).toEqual(['Reset your password - Accounts', 'Your password was changed - Accounts'])
    expect(mails[1]!.links).toContain('http://app.test/forgot-password')
  })

  it('leaves an activity entry "Reset password" with the client address', async () => {
    const user = await t.createUser()
    await forgotPassword(t, user.email)
    await resetPassword(t, tokenOf(await resetLink(t, user.email)), NEW_PASSWORD, '192.0.2.200')
    expect((await activitiesOf(t, user.id)).at(-1)).toMatchObject({ kind: 'reset', activity: 'Reset password', ip_address: '192.0.2.200' })
  })

  it('can use a link only once', async () => {
    const user = await t.createUser()
    await forgotPassword(t, user.email)
    const token = tokenOf(await resetLink(t, user.email))
    expect((await resetPassword(t, token, NEW_PASSWORD)).statusCode).toBe(200)
    expectFailure(await resetPassword(t, token, 'Another-Start-2027!'), 400, 'INVALID_TOKEN', INVALID_LINK)
    expect((await t.login(user.email, NEW_PASSWORD)).statusCode).toBe(200)
  })

  it('finds the link dead after one hour', async () => {
    const early = await t.createUser()
    const late = await t.createUser()
    await forgotPassword(t, early.email)
    await forgotPassword(t, late.email)
    const earlyToken = tokenOf(await resetLink(t, early.email))
    const lateToken = tokenOf(await resetLink(t, late.email))

    t.clock.advance(60 * 60 - 5)
    expect((await resetPassword(t, earlyToken, NEW_PASSWORD)).statusCode).toBe(200)
    t.clock.advance(10)
    expectFailure(await resetPassword(t, lateToken, NEW_PASSWORD), 400, 'INVALID_TOKEN', INVALID_LINK)
    expect((await t.login(late.email, late.password)).statusCode).toBe(200)
  })

  it('finds an older link dead once a newer one was asked for', async () => {
    const user = await t.createUser()
    await forgotPassword(t, user.email)
    const older = tokenOf(await resetLink(t, user.email))
    await forgotPassword(t, user.email)
    const newer = tokenOf(await resetLink(t, user.email))
    expect(newer).not.toBe(older)

    expectFailure(await resetPassword(t, older, NEW_PASSWORD), 400, 'INVALID_TOKEN', INVALID_LINK)
    expect((await resetPassword(t, newer, NEW_PASSWORD)).statusCode).toBe(200)
  })

  it('is refused for a made-up or malformed token', async () => {
    for (const token of ['A'.repeat(43), 'short', 'x'.repeat(150)]) {
      expectFailure(await resetPassword(t, token, NEW_PASSWORD), 400, 'INVALID_TOKEN', INVALID_LINK)
    }
  })

  it('cannot reset with an e-mail verification token', async () => {
    const visitor = { name: 'Reset Tester', email: uniqueEmail('visitor'), password: 'Correct-Horse-7-Battery!' }
    await t.request('POST', '/api/auth/register', { body: { ...visitor, confirmPassword: visitor.password } })
    const [mail] = await mailTo(t, visitor.email)
    const verifyToken = new URL(mail!.links[0]!).searchParams.get('token')!
    expectFailure(await resetPassword(t, verifyToken, NEW_PASSWORD), 400, 'INVALID_TOKEN', INVALID_LINK)
  })

  it('must choose a password that follows the rules; the link survives a refused attempt', async () => {
    const user = await t.createUser({ email: `hedy.lamarr+${Date.now()}@example.com` })
    await forgotPassword(t, user.email)
    const token = tokenOf(await resetLink(t, user.email))
    const attempt = (password: string, confirmPassword = password) => t.request('POST', `/api/auth/reset-password/${token}`, { body: { password, confirmPassword } })

    expectFieldError(await attempt('Ab1!'), 'password', 'Password must be at least 8 characters')
    expectFieldError(
      await attempt('alllowercase1!'),
      'password',
      'Password must contain at least one uppercase letter, one lowercase letter, one number, and one special character',
    )
    expectFieldError(await attempt(NEW_PASSWORD, `${NEW_PASSWORD}x`), 'confirmPassword', "Passwords don't match")
    expectFieldError(await attempt('Password1!'), 'password', 'This password is too common. Please choose a less predictable one.')
    for (const containsName of ['Hedy.Lamarr-2026!', 'Hedylamarr-2026!', 'Lamarr-Rocks-2026!']) {
      expectFieldError(await attempt(containsName), 'password', 'Password must not contain the name of your email address')
    }
    expectFieldError(await attempt(`Aa1!${'x'.repeat(125)}`), 'password', 'Password must be at most 128 characters')
    const extra = await t.request('POST', `/api/auth/reset-password/${token}`, {
      body: { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD, email: 'someone-else@example.com' },
    })
    expectFieldError(extra, 'email', 'Unrecognized field "email"')

    expect((await attempt(NEW_PASSWORD)).statusCode).toBe(200)
  })
})
