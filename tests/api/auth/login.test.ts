import { describe, expect, it } from 'vitest'
import { useTestApp, uniqueEmail } from '../../support/test-app'
import { activitiesOf, expectFailure, expectFieldError, newVisitor, register, withoutRequestId } from './helpers'

const USER_FIELDS = ['createdAt', 'email', 'emailVerified', 'id', 'name', 'phone', 'profilePicture', 'role', 'status', 'updatedAt']

// One application for the whole file: each story uses accounts of its own.
const t = useTestApp()

describe('a user signs in', () => {
  it('gets an access token, a refresh token, a CSRF token and their user, and nothing else', async () => {
    const user = await t.createUser({ name: 'Grace Hopper' })
    const response = await t.login(user.email, user.password)

    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(Object.keys(body).sort()).toEqual(['data', 'message', 'success'])
    expect(body).toMatchObject({ success: true, message: 'Login successful!' })
    expect(Object.keys(body.data).sort()).toEqual(['accessToken', 'csrfToken', 'refreshToken', 'user'])
    expect(body.data.accessToken.split('.')).toHaveLength(3)
    expect(body.data.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(response.headers['x-csrf-token']).toBe(body.data.csrfToken)

    const returned = body.data.user
    expect(Object.keys(returned).sort()).toEqual(USER_FIELDS)
    expect(returned).toEqual({
      id: user.id,
      name: 'Grace Hopper',
      email: user.email,
      phone: null,
      role: 'CLIENT',
      status: 'ACTIVE',
      emailVerified: true,
      profilePicture: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    })
    expect(response.body).not.toMatch(/argon2|hash/i)
    expect(response.headers['cache-control']).toBe('no-store')
  })

  it('may type the address in any case', async () => {
    const user = await t.createUser()
    const response = await t.login(user.email.toUpperCase(), user.password)
    expect(response.statusCode).toBe(200)
    expect(response.json().data.user.email).toBe(user.email)
  })

  it('leaves an activity entry "Logged in" with the client address', async () => {
    const user = await t.createUser()
    await t.login(user.email, user.password, '203.0.113.40')
    expect((await activitiesOf(t, user.id)).at(-1)).toMatchObject({ kind: 'logged in', activity: 'Logged in', ip_address: '203.0.113.40' })
  })
})

describe('a sign-in that fails', () => {
  it('answers an unknown address and a wrong password identically, whatever state the account is in', async () => {
    const active = await t.createUser()
    const suspended = await t.createUser({ status: 'SUSPENDED' })
    const inactive = await t.createUser({ status: 'INACTIVE' })
    const unverified = newVisitor()
    await register(t, unverified)

    const attempts = [
      await t.login(uniqueEmail('nobody'), active.password),
      await t.login(active.email, 'Wrong-Password-1!'),
      await t.login(suspended.email, 'Wrong-Password-1!'),
      await t.login(inactive.email, 'Wrong-Password-1!'),
      await t.login(unverified.email, 'Wrong-Password-1!'),
    ]
    const first = expectFailure(attempts[0]!, 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
    expect(Object.keys(first).sort()).toEqual(['code', 'message', 'requestId', 'success'])
    for (const attempt of attempts) {
      expect(attempt.statusCode).toBe(401)
      expect(withoutRequestId(attempt)).toEqual(withoutRequestId(attempts[0]!))
      expect(attempt.headers['x-csrf-token']).toBeUndefined()
    }
    const requestIds = new Set(attempts.map((a) => a.json().requestId))
    expect(requestIds.size).toBe(attempts.length)
  })

  it('tells the account state only to someone with the right password', async () => {
    const suspended = await t.createUser({ status: 'SUSPENDED' })
    const inactive = await t.createUser({ status: 'INACTIVE' })
    const unverified = newVisitor()
    await register(t, unverified)

    expectFailure(await t.login(suspended.email, suspended.password), 403, 'ACCOUNT_SUSPENDED', 'Account is suspended')
    expectFailure(await t.login(inactive.email, inactive.password), 403, 'ACCOUNT_INACTIVE', 'Account is inactive')
    expectFailure(await t.login(unverified.email, unverified.password), 403, 'EMAIL_NOT_VERIFIED', 'Email not verified')
  })

  it('gives no session to an account that is not usable', async () => {
    const suspended = await t.createUser({ status: 'SUSPENDED' })
    const response = await t.login(suspended.email, suspended.password)
    expect(response.body).not.toMatch(/accessToken|refreshToken|csrfToken/)
    const sessions = await t.ctx.db.selectFrom('sessions').select('id').where('user_id', '=', suspended.id).execute()
    expect(sessions).toEqual([])
  })

  it('records a refused sign-in with the right password as a failed login, with the reason', async () => {
    for (const [input, reason] of [
      [{ status: 'SUSPENDED' }, 'Account is suspended'],
      [{ status: 'INACTIVE' }, 'Account is inactive'],
    ] as const) {
      const user = await t.createUser(input)
      await t.login(user.email, user.password, '203.0.113.42')
      expect((await activitiesOf(t, user.id)).at(-1)).toMatchObject({ activity: 'Failed login', details: reason, ip_address: '203.0.113.42' })
    }
    const unverified = await t.createUser()
    await t.ctx.db.updateTable('users').set({ email_verified_at: null }).where('id', '=', unverified.id).execute()
    await t.login(unverified.email, unverified.password, '203.0.113.42')
    expect((await activitiesOf(t, unverified.id)).at(-1)).toMatchObject({ activity: 'Failed login', details: 'Email not verified' })
  })

  it('leaves an activity entry "Failed login" with the client address', async () => {
    const user = await t.createUser()
    await t.login(user.email, 'Wrong-Password-1!', '203.0.113.41')
    expect((await activitiesOf(t, user.id)).at(-1)).toMatchObject({ activity: 'Failed login', ip_address: '203.0.113.41' })
  })

  it('needs a well-formed address and a password', async () => {
    const login = (body: unknown) => t.request('POST', '/api/auth/login', { body })
    expectFieldError(await login({ email: 'not-an-address', password: 'x' }), 'email', 'Invalid email address')
    expectFieldError(await login({ password: 'x' }), 'email', 'Invalid email address')
    expectFieldError(await login({ email: 'someone@example.com' }), 'password', 'Password is required')
    expectFieldError(await login({ email: 'someone@example.com', password: '' }), 'password', 'Password is required')
    expectFieldError(await login({ email: 'someone@example.com', password: 'x', role: 'ADMIN' }), 'role', 'Unrecognized field "role"')
  })
})
