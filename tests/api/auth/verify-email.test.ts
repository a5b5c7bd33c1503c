import { describe, expect, it } from 'vitest'
import { useTestApp, type TestApp, uniqueEmail } from '../../support/test-app'
import { activitiesOf, expectFailure, expectFieldError, mailTo, newVisitor, register, tokenOf, userIdOf, verificationLink, withoutRequestId } from './helpers'

const verify = (t: TestApp, token: string, remoteAddress?: string) => t.request('GET', `/api/auth/verify-email/${token}`, remoteAddress ? { remoteAddress } : {})

const INVALID_LINK = 'Invalid or expired verification link'

// One application for the whole file: each story uses accounts of its own.
const t = useTestApp()

describe('a new user verifies their e-mail address', () => {
  it('follows the link from the e-mail, then can sign in', async () => {
    const visitor = newVisitor()
    await register(t, visitor)
    const token = tokenOf(await verificationLink(t, visitor.email))

    const response = await verify(t, token)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ success: true, message: 'Email verified successfully!' })

    const login = await t.login(visitor.email, visitor.password)
    expect(login.statusCode, login.body).toBe(200)
    expect(login.json().data.user).toMatchObject({ email: visitor.email, emailVerified: true, status: 'ACTIVE', role: 'CLIENT' })
  })

  it('leaves an activity entry "Verified email" with the client address', async () => {
    const visitor = newVisitor()
    await register(t, visitor)
    await verify(t, tokenOf(await verificationLink(t, visitor.email)), '192.0.2.77')
    const entries = await activitiesOf(t, await userIdOf(t, visitor.email))
    expect(entries.at(-1)).toMatchObject({ kind: 'verified', activity: 'Verified email', ip_address: '192.0.2.77' })
  })

  it('can use the link only once', async () => {
    const visitor = newVisitor()
    await register(t, visitor)
    const token = tokenOf(await verificationLink(t, visitor.email))
    expect((await verify(t, token)).statusCode).toBe(200)
    expectFailure(await verify(t, token), 400, 'INVALID_TOKEN', INVALID_LINK)
  })

  it('finds the link dead after 24 hours', async () => {
    const early = newVisitor()
    const late = newVisitor()
    await register(t, early)
    await register(t, late)
    const earlyToken = tokenOf(await verificationLink(t, early.email))
    const lateToken = tokenOf(await verificationLink(t, late.email))

    t.clock.advance(24 * 60 * 60 - 5)
    expect((await verify(t, earlyToken)).statusCode).toBe(200)
    t.clock.advance(10)
    expectFailure(await verify(t, lateToken), 400, 'INVALID_TOKEN', INVALID_LINK)
    expectFailure(await t.login(late.email, late.password), 403, 'EMAIL_NOT_VERIFIED', 'Email not verified')
  })

  it('is refused for a made-up or malformed token, the same way', async () => {
    const madeUp = 'A'.repeat(43)
    for (const token of [madeUp, 'short', 'x'.repeat(150), '%27%20OR%201%3D1--']) {
      expectFailure(await verify(t, token), 400, 'INVALID_TOKEN', INVALID_LINK)
    }
  })

  it('cannot verify with a password-reset token', async () => {
    const user = await t.createUser()
    await t.request('POST', '/api/auth/forgot-password', { body: { email: user.email } })
    const [mail] = (await mailTo(t, user.email)).filter((m) => m.subject === 'Reset your password - Accounts')
    const resetToken = new URL(mail!.links.find((l) => l.includes('/reset-password'))!).searchParams.get('token')!
    expectFailure(await verify(t, resetToken), 400, 'INVALID_TOKEN', INVALID_LINK)
  })
})

describe('a user asks for the verification e-mail again', () => {
  const resend = (email: unknown) => t.request('POST', '/api/auth/resend-verification', { body: email === undefined ? {} : { email } })

  it('gets the same answer for an unknown, an unverified and a verified address; only the unverified one gets mail', async () => {
    const unverified = newVisitor()
    await register(t, unverified)
    await mailTo(t, unverified.email) // the registration mail, delivered now
    const verified = await t.createUser()
    const unknown = uniqueEmail('nobody')

    const answers = [await resend(unknown), await resend(unverified.email), await resend(verified.email)]
    for (const answer of answers) expect(answer.statusCode).toBe(200)
    expect(answers[0]!.json()).toEqual({ success: true, message: expect.any(String) })
    expect(withoutRequestId(answers[1]!)).toEqual(withoutRequestId(answers[0]!))
    expect(withoutRequestId(answers[2]!)).toEqual(withoutRequestId(answers[0]!))

    const toUnverified = (await mailTo(t, unverified.email)).filter((m) => m.subject === 'Verify your email address - Accounts')
    expect(toUnverified).toHaveLength(2)
    expect(await mailTo(t, verified.email)).toEqual([])
    expect(await mailTo(t, unknown)).toEqual([])
  })

  it('can verify with the new link', async () => {
    const visitor = newVisitor()
    await register(t, visitor)
    await resend(visitor.email.toUpperCase())
    const token = tokenOf(await verificationLink(t, visitor.email))
    expect((await verify(t, token)).statusCode).toBe(200)
    expect((await t.login(visitor.email, visitor.password)).statusCode).toBe(200)
  })

  it('must give an address: "Email address not found. Please register again."', async () => {
    for (const missing of [undefined, '', null]) {
      expectFieldError(await resend(missing), 'email', 'Email address not found. Please register again.')
    }
    expectFieldError(await resend('not-an-address'), 'email', 'Invalid email address')
  })
})
