import { describe, expect, it } from 'vitest'
import { RULES } from '~server/rate-limit/rules'
import { commitChange } from '~server/change'
import { turnOffSecondFactors } from '~server/use-cases/two-factor/disable-two-factor'
import { useMailboxTestApp } from '../../support/mailbox'
import { useTestApp } from '../../support/test-app'
import { APP_ORIGIN, activitiesOf, expectFailure, expectFieldError, me } from './helpers'
import { codeAt, mfaPost, passwordStep, secondStep, turnOnTwoFactor, wrongCode } from './two-factor-helpers'

/**
 * Two-factor sign-in, the whole life of it: setup, turning on with a first code, signing in in two
 * steps with codes the test computes from the secret at the test clock, recovery codes, renewal,
 * turning off; the mfaToken's rules (5 minutes, single use, 5 wrong codes), no replay, one step of
 * drift; bad input; throttling; and the notices, through a real SMTP server.
 */
describe('two-factor sign-in', () => {
  const t = useTestApp()

  const status = async (token: string) => {
    const response = await t.request('GET', '/api/auth/mfa', { token })
    expect(response.statusCode, response.body).toBe(200)
    return response.json().data
  }
  const mfaEnabled = async (id: string) => (await t.ctx.db.selectFrom('users').select('mfa_enabled').where('id', '=', id).executeTakeFirstOrThrow()).mfa_enabled

  it('turns on only with a correct code, then asks every sign-in for a code, which works once', async () => {
    const user = await t.signIn({ name: 'Ada Lovelace' })
    expect(await status(user.accessToken)).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 })

    expectFieldError(await mfaPost(t, user, '/totp/setup', { password: 'Not-The-Password-1!' }), 'password', 'Current password is incorrect')
    expectFailure(await mfaPost(t, user, '/totp/enable', { code: '123456' }), 409, 'MFA_SETUP_REQUIRED')

    const setup = await mfaPost(t, user, '/totp/setup', { password: user.password })
    expect(setup.statusCode, setup.body).toBe(200)
    const { secret, otpauthUrl, qrCode } = setup.json().data
    expect(secret).toMatch(/^[A-Z2-7]{32}$/) // 160 bits of base32
    const address = new URL(otpauthUrl)
    expect(address.protocol).toBe('otpauth:')
    expect(address.host).toBe('totp')
    expect(decodeURIComponent(address.pathname)).toBe(`/Accounts:${user.email}`)
    expect(Object.fromEntries(address.searchParams)).toEqual({ secret, issuer: 'Accounts', algorithm: 'SHA1', digits: '6', period: '30' })
    expect(qrCode).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/)

    // Nothing changes until a code turns it on; the secret is stored sealed, never as sent.
    expect(await status(user.accessToken)).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 })
    expect((await t.login(user.email, user.password)).json().data.accessToken).toEqual(expect.any(String))
    const stored = await t.ctx.db.selectFrom('totp_credentials').select('secret_sealed').where('user_id', '=', user.id).executeTakeFirstOrThrow()
    expect(stored.secret_sealed.toString('latin1')).not.toContain(secret)

    expectFieldError(await mfaPost(t, user, '/totp/enable', { code: wrongCode(t, secret) }), 'code', 'Invalid code')
    expect(await mfaEnabled(user.id)).toBe(false)
    const enabled = await mfaPost(t, user, '/totp/enable', { code: codeAt(t, secret) })
    expect(enabled.statusCode, enabled.body).toBe(200)
    const { recoveryCodes } = enabled.json().data
    expect(recoveryCodes).toHaveLength(10)
    expect(new Set(recoveryCodes).size).toBe(10)
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/)
    expect(await status(user.accessToken)).toEqual({ totp: true, recoveryCodesLeft: 10, passkeys: 0 })
    expect(await mfaEnabled(user.id)).toBe(true)
    // Only hashes are kept.
    const hashes = await t.ctx.db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', user.id).execute()
    expect(hashes.map((row) => row.code_hash.toString('latin1')).some((stored) => recoveryCodes.some((code: string) => stored.includes(code)))).toBe(false)
    expectFailure(await mfaPost(t, user, '/totp/setup', { password: user.password }), 409, 'MFA_ALREADY_ENABLED')

    // The code that turned it on cannot sign in (same step); the next step's can, once.
    const firstToken = await passwordStep(t, user)
    expectFailure(await secondStep(t, { mfaToken: firstToken, code: codeAt(t, secret) }), 401, 'INVALID_CODE', 'Invalid code')
    t.clock.advance(30)
    const password = await t.login(user.email, user.password)
    expect(password.json().data).toEqual({ mfaRequired: true, mfaToken: expect.any(String), methods: ['totp', 'recovery'] })
    expect(password.headers['x-csrf-token']).toBeUndefined()
    const signedIn = await secondStep(t, { mfaToken: password.json().data.mfaToken, code: codeAt(t, secret) })
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    const tokens = signedIn.json().data
    expect(tokens).toEqual({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      csrfToken: expect.any(String),
      user: expect.objectContaining({ id: user.id }),
    })
    expect(signedIn.headers['x-csrf-token']).toBe(tokens.csrfToken)
    expect((await me(t, tokens.accessToken)).statusCode).toBe(200)

    // Replay: the same code, in the same step, with a new mfaToken.
    const again = await passwordStep(t, user)
    expectFailure(await secondStep(t, { mfaToken: again, code: codeAt(t, secret) }), 401, 'INVALID_CODE', 'Invalid code')
    // The used mfaToken is dead too, even with a good code.
    t.clock.advance(30)
    expectFailure(await secondStep(t, { mfaToken: password.json().data.mfaToken, code: codeAt(t, secret) }), 401, 'INVALID_CODE')

    const entries = await activitiesOf(t, user.id)
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'security', activity: 'Enabled two-factor authentication' }),
        expect.objectContaining({ kind: 'other', activity: 'Failed login', details: 'Wrong two-factor code' }),
        expect.objectContaining({ kind: 'other', activity: 'Failed password confirmation', details: 'Wrong current password' }),
      ]),
    )
  })

  it('accepts a code one step early or late, not two', async () => {
    const user = await t.signIn()
    const { secret } = await turnOnTwoFactor(t, user)
    // A phone 30 s fast: the next step's code.
    expect((await secondStep(t, { mfaToken: await passwordStep(t, user), code: codeAt(t, secret, 30) })).statusCode).toBe(200)
    t.clock.advance(90)
    // A phone 30 s slow: the previous step's code.
    expect((await secondStep(t, { mfaToken: await passwordStep(t, user), code: codeAt(t, secret, -30) })).statusCode).toBe(200)
    t.clock.advance(120)
    expectFailure(await secondStep(t, { mfaToken: await passwordStep(t, user), code: codeAt(t, secret, -60) }), 401, 'INVALID_CODE')
    expectFailure(await secondStep(t, { mfaToken: await passwordStep(t, user), code: codeAt(t, secret, 60) }), 401, 'INVALID_CODE')
  })

  it('kills an mfaToken after 5 wrong codes, and after 5 minutes', async () => {
    const user = await t.signIn()
    const { secret } = await turnOnTwoFactor(t, user)
    const mfaToken = await passwordStep(t, user)
    for (let i = 0; i < 5; i++) expectFailure(await secondStep(t, { mfaToken, code: wrongCode(t, secret) }), 401, 'INVALID_CODE', 'Invalid code')
    expectFailure(await secondStep(t, { mfaToken, code: codeAt(t, secret) }), 401, 'INVALID_CODE', 'Invalid code')
    expectFailure(await secondStep(t, { mfaToken, recoveryCode: 'aaaa-bbbb-cccc-dddd' }), 401, 'INVALID_CODE')

    const slow = await passwordStep(t, user)
    t.clock.advance(5 * 60 + 1)
    expectFailure(await secondStep(t, { mfaToken: slow, code: codeAt(t, secret) }), 401, 'INVALID_CODE')
    // A fresh one still works with that code.
    expect((await secondStep(t, { mfaToken: await passwordStep(t, user), code: codeAt(t, secret) })).statusCode).toBe(200)
  })

  it('takes a recovery code once, in any case and spacing; a new set kills the old', async () => {
    const user = await t.signIn()
    const { recoveryCodes } = await turnOnTwoFactor(t, user)
    const [first, second] = recoveryCodes as [string, string]

    const typed = ` ${first.toUpperCase().replace(/-/g, ' ')} `
    const signedIn = await secondStep(t, { mfaToken: await passwordStep(t, user), recoveryCode: typed })
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    expect((await me(t, signedIn.json().data.accessToken)).statusCode).toBe(200)
    expectFailure(await secondStep(t, { mfaToken: await passwordStep(t, user), recoveryCode: first }), 401, 'INVALID_CODE')
    expect((await status(user.accessToken)).recoveryCodesLeft).toBe(9)
    expect((await activitiesOf(t, user.id)).map((entry) => entry.activity)).toContain('Logged in with a recovery code')

    expectFieldError(await mfaPost(t, user, '/recovery-codes', { password: 'Not-The-Password-1!' }), 'password', 'Current password is incorrect')
    const renewed = await mfaPost(t, user, '/recovery-codes', { password: user.password })
    expect(renewed.statusCode, renewed.body).toBe(200)
    const fresh = renewed.json().data.recoveryCodes as string[]
    expect(fresh).toHaveLength(10)
    expect(fresh).not.toContain(second)
    expect((await status(user.accessToken)).recoveryCodesLeft).toBe(10)
    expectFailure(await secondStep(t, { mfaToken: await passwordStep(t, user), recoveryCode: second }), 401, 'INVALID_CODE')
    expect((await secondStep(t, { mfaToken: await passwordStep(t, user), recoveryCode: fresh[0] })).statusCode).toBe(200)
    expect((await activitiesOf(t, user.id)).filter((entry) => entry.kind === 'security').map((entry) => entry.activity)).toEqual([
      'Enabled two-factor authentication',
      'Regenerated recovery codes',
    ])
  })

  it('turns off with the password: one-step sign-in again, the secret and codes gone', async () => {
    const user = await t.signIn()
    const { recoveryCodes } = await turnOnTwoFactor(t, user)
    expectFieldError(await mfaPost(t, user, '/totp/disable', { password: 'Not-The-Password-1!' }), 'password', 'Current password is incorrect')
    expect(await mfaEnabled(user.id)).toBe(true)
    const pending = await passwordStep(t, user)

    const off = await mfaPost(t, user, '/totp/disable', { password: user.password })
    expect(off.statusCode, off.body).toBe(200)
    expect(off.json()).toEqual({ success: true, message: 'Two-factor authentication is off' })
    expect(await status(user.accessToken)).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 })
    expect(await mfaEnabled(user.id)).toBe(false)
    for (const table of ['totp_credentials', 'recovery_codes', 'mfa_challenges'] as const) {
      expect(await t.ctx.db.selectFrom(table).select('user_id').where('user_id', '=', user.id).execute()).toEqual([])
    }
    // A sign-in that was waiting for its second step cannot finish.
    expectFailure(await secondStep(t, { mfaToken: pending, recoveryCode: recoveryCodes[0] }), 401, 'INVALID_CODE')
    expect((await t.login(user.email, user.password)).json().data.accessToken).toEqual(expect.any(String))
    expectFailure(await mfaPost(t, user, '/recovery-codes', { password: user.password }), 409, 'MFA_NOT_ENABLED')
    expect((await activitiesOf(t, user.id)).filter((entry) => entry.kind === 'security').map((entry) => entry.activity)).toEqual([
      'Enabled two-factor authentication',
      'Disabled two-factor authentication',
    ])
    // Turning it off when it is off changes and records nothing.
    expect((await mfaPost(t, user, '/totp/disable', { password: user.password })).statusCode).toBe(200)
    expect((await activitiesOf(t, user.id)).filter((entry) => entry.kind === 'security')).toHaveLength(2)
  })

  it('keeps the spec’s answers of the password step for accounts with two-factor on', async () => {
    const user = await t.signIn()
    await turnOnTwoFactor(t, user)
    expectFailure(await t.login(user.email, 'Wrong-Password-1!'), 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
    await t.ctx.db.updateTable('users').set({ status: 'SUSPENDED' }).where('id', '=', user.id).execute()
    expectFailure(await t.login(user.email, user.password), 403, 'ACCOUNT_SUSPENDED', 'Account is suspended')
    await t.ctx.db.updateTable('users').set({ status: 'ACTIVE', email_verified_at: null }).where('id', '=', user.id).execute()
    expectFailure(await t.login(user.email, user.password), 403, 'EMAIL_NOT_VERIFIED', 'Email not verified')
  })

  it('refuses a second step for an account suspended after its password step', async () => {
    const user = await t.signIn()
    const { secret } = await turnOnTwoFactor(t, user)
    const mfaToken = await passwordStep(t, user)
    await t.ctx.db.updateTable('users').set({ status: 'SUSPENDED' }).where('id', '=', user.id).execute()
    expectFailure(await secondStep(t, { mfaToken, code: codeAt(t, secret) }), 403, 'ACCOUNT_SUSPENDED')
  })

  it('refuses another account’s code with an mfaToken, and an unknown mfaToken', async () => {
    const alice = await t.signIn({ name: 'Alice' })
    const bob = await t.signIn({ name: 'Bob' })
    await turnOnTwoFactor(t, alice)
    const { secret: bobSecret, recoveryCodes: bobCodes } = await turnOnTwoFactor(t, bob)
    const aliceToken = await passwordStep(t, alice)
    expectFailure(await secondStep(t, { mfaToken: aliceToken, code: codeAt(t, bobSecret) }), 401, 'INVALID_CODE', 'Invalid code')
    expectFailure(await secondStep(t, { mfaToken: aliceToken, recoveryCode: bobCodes[0] }), 401, 'INVALID_CODE', 'Invalid code')
    expectFailure(await secondStep(t, { mfaToken: 'x'.repeat(43), code: codeAt(t, bobSecret) }), 401, 'INVALID_CODE', 'Invalid code')
    // Bob's code and recovery code still work for Bob.
    expect((await secondStep(t, { mfaToken: await passwordStep(t, bob), recoveryCode: bobCodes[0] })).statusCode).toBe(200)
  })

  it('answers malformed second steps and codes with a 400 before any check', async () => {
    const user = await t.signIn()
    const { secret } = await turnOnTwoFactor(t, user)
    const mfaToken = await passwordStep(t, user)
    const bad: [Record<string, unknown>, string, string][] = [
      [{ mfaToken, code: '12345' }, 'code', 'Code must be 6 digits'],
      [{ mfaToken, code: '1234567' }, 'code', 'Code must be 6 digits'],
      [{ mfaToken, code: '12a456' }, 'code', 'Code must be 6 digits'],
      [{ mfaToken, code: ' 123456' }, 'code', 'Code must be 6 digits'],
      [{ mfaToken, code: 123456 }, 'code', 'Code must be 6 digits'],
      [{ mfaToken, recoveryCode: 'too-short' }, 'recoveryCode', 'Recovery code must be 16 letters and digits'],
      [{ mfaToken, recoveryCode: 'x'.repeat(1000) }, 'recoveryCode', 'Recovery code must be 16 letters and digits'],
      [{ mfaToken, recoveryCode: 'uuuu-uuuu-uuuu-uuuu' }, 'recoveryCode', 'Recovery code must be 16 letters and digits'],
      [{ mfaToken }, 'code', 'Enter a code or a recovery code'],
      [{ mfaToken, code: '123456', recoveryCode: 'aaaa-bbbb-cccc-dddd' }, 'code', 'Enter a code or a recovery code'],
      [{ code: '123456' }, 'mfaToken', 'Sign-in step is missing'],
      [{ mfaToken: '', code: '123456' }, 'mfaToken', 'Sign-in step is missing'],
    ]
    for (const [body, field, message] of bad) expectFieldError(await secondStep(t, body), field, message)
    expectFailure(await secondStep(t, { mfaToken, code: '123456', role: 'ADMIN' }), 400, 'VALIDATION_ERROR')
    expectFieldError(await mfaPost(t, user, '/totp/enable', { code: 'abcdef' }), 'code', 'Code must be 6 digits')
    expectFieldError(await mfaPost(t, user, '/totp/setup', {}), 'password', 'Current password is required')
    expectFieldError(await mfaPost(t, user, '/totp/disable', { password: 42 }), 'password', 'Current password is required')
    expectFailure(await mfaPost(t, user, '/recovery-codes', { password: user.password, extra: true }), 400, 'VALIDATION_ERROR')

    // None of them counted as a try: the mfaToken still has its 5 tries and works.
    const challenge = await t.ctx.db.selectFrom('mfa_challenges').select('failures').where('user_id', '=', user.id).executeTakeFirstOrThrow()
    expect(challenge.failures).toBe(0)
    expect((await secondStep(t, { mfaToken, code: codeAt(t, secret) })).statusCode).toBe(200)
  })

  it('lets an administrator’s reset turn the second factors off inside its own change', async () => {
    const user = await t.signIn()
    await turnOnTwoFactor(t, user)
    const wasOn = await commitChange(t.ctx, (c) => turnOffSecondFactors(c, user.id))
    expect(wasOn).toBe(true)
    expect(await mfaEnabled(user.id)).toBe(false)
    expect(await status(user.accessToken)).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 })
    expect(await commitChange(t.ctx, (c) => turnOffSecondFactors(c, user.id))).toBe(false)
  })
})

describe('two-factor sign-in under throttling', () => {
  const t = useTestApp({ RATE_LIMIT: 'on' })

  it('counts wrong codes against the account like wrong passwords; a right password does not clear them', async () => {
    const user = await t.signIn()
    const { secret } = await turnOnTwoFactor(t, user)
    expect(RULES.signInByEmail.max).toBe(10)
    // Each password step counts one, each wrong code one: 1 + 4 + 1 + 4 = 10.
    for (let round = 0; round < 2; round++) {
      const mfaToken = await passwordStep(t, user, `10.77.${round}.1`)
      for (let i = 0; i < 4; i++) expectFailure(await secondStep(t, { mfaToken, code: wrongCode(t, secret) }, `10.77.${round}.${i + 2}`), 401, 'INVALID_CODE')
    }
    expectFailure(await t.login(user.email, user.password, '10.77.9.1'), 429, 'RATE_LIMITED')
    // When the window is over, a complete sign-in clears the count. Redis (TEST_REDIS_URL) ends
    // windows by its own key expiry, which the test clock does not move: there, this part is left
    // to the database store's run.
    if (process.env.TEST_REDIS_URL) return
    t.clock.advance(RULES.signInByEmail.windowSeconds + 1)
    const mfaToken = await passwordStep(t, user, '10.77.10.1')
    expect((await secondStep(t, { mfaToken, code: codeAt(t, secret) }, '10.77.10.1')).statusCode).toBe(200)
    for (let i = 0; i < 3; i++) expect((await t.login(user.email, user.password, '10.77.11.1')).statusCode).toBe(200)
  })
})

describe('two-factor notices through an SMTP server', () => {
  const { t, smtp } = useMailboxTestApp()

  it('e-mails the account when two-factor goes on, when recovery codes are replaced and when it goes off', async () => {
    const user = await t.signIn({ name: 'Grace Hopper' })
    await turnOnTwoFactor(t, user)
    expect((await mfaPost(t, user, '/recovery-codes', { password: user.password })).statusCode).toBe(200)
    expect((await mfaPost(t, user, '/totp/disable', { password: user.password })).statusCode).toBe(200)
    await t.deliverMail()

    for (const subject of ['Two-factor authentication is on', 'New recovery codes for your account', 'Two-factor authentication is off']) {
      const mail = await smtp.next(user.email, `${subject} - Accounts`)
      expect(mail.text).toContain('Hello Grace Hopper,')
      expect(mail.html).toContain('Hello Grace Hopper,')
      expect(mail.links).toEqual([`${APP_ORIGIN}/profile`, `${APP_ORIGIN}/forgot-password`])
      expect(mail.html).toContain(`href="${APP_ORIGIN}/profile"`)
    }
  })
})
