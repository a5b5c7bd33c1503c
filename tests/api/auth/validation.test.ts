import { describe, expect, it } from 'vitest'
import { useTestApp, STRONG_PASSWORD, uniqueEmail } from '../../support/test-app'
import { expectFailure, expectFieldError, mailTo, newVisitor, register, registerAndVerify, type Visitor } from './helpers'

const RULE = 'Password must contain at least one uppercase letter, one lowercase letter, one number, and one special character'
const COMMON = 'This password is too common. Please choose a less predictable one.'
const CONTAINS_EMAIL = 'Password must not contain the name of your email address'

// One application for the whole file: each story uses accounts of its own.
const t = useTestApp()

describe('the registration form, checked by the server', () => {
  const attempt = (changes: Record<string, unknown>) => {
    const visitor = newVisitor()
    return t.request('POST', '/api/auth/register', { body: { ...visitor, confirmPassword: visitor.password, ...changes } })
  }
  const usersNamed = (email: string) => t.ctx.db.selectFrom('users').select('id').where('email', '=', email.toLowerCase()).execute()

  it('needs a name of 2 to 50 characters', async () => {
    expectFieldError(await attempt({ name: 'A' }), 'name', 'Name must be at least 2 characters')
    expectFieldError(await attempt({ name: '   A   ' }), 'name', 'Name must be at least 2 characters')
    expectFieldError(await attempt({ name: undefined }), 'name', 'Name must be at least 2 characters')
    expectFieldError(await attempt({ name: 'x'.repeat(51) }), 'name', 'Name must be less than 50 characters')
    expect((await attempt({ name: 'x'.repeat(50) })).statusCode).toBe(201)
  })

  it('needs a valid e-mail address', async () => {
    const invalid = ['plainaddress', 'no-domain@', '@no-local.com', 'two@@example.com', 'spa ce@example.com', 'a@b', '', 42, null]
    for (const email of invalid) expectFieldError(await attempt({ email }), 'email', 'Invalid email address')
    expectFieldError(await attempt({ email: undefined }), 'email', 'Invalid email address')
  })

  it('refuses an address carrying a line break, and sends no mail', async () => {
    const email = `${uniqueEmail('crlf')}\r\nBcc: victim@example.com`
    expectFieldError(await attempt({ email }), 'email', 'Invalid email address')
    expect(await mailTo(t, 'victim@example.com')).toEqual([])
  })

  it('answers a regex-hostile address with a plain 400', async () => {
    expectFieldError(await attempt({ email: `${'a'.repeat(50_000)}@` }), 'email', 'Invalid email address')
    expectFieldError(await attempt({ email: `${'a.'.repeat(25_000)}@example.com` }), 'email', 'Invalid email address')
  })

  it('takes an optional phone with no format rule, only a length cap and no control characters', async () => {
    for (const phone of ['+44 20 7946 0958 ext. 12', '(0)30 1234-5678 / 9', 'call me maybe', '٠١٢٣٤٥']) {
      const email = uniqueEmail('phone')
      expect((await attempt({ phone, email })).statusCode).toBe(201)
      const stored = await t.ctx.db.selectFrom('users').select('phone').where('email', '=', email).executeTakeFirstOrThrow()
      expect(stored.phone).toBe(phone)
    }
    expectFieldError(await attempt({ phone: '1'.repeat(33) }), 'phone', 'Phone number must be at most 32 characters')
    expectFieldError(await attempt({ phone: '555\u00001234' }), 'phone', 'Phone number must not contain control characters')
    expectFieldError(await attempt({ phone: '555\n1234' }), 'phone', 'Phone number must not contain control characters')
    expectFieldError(await attempt({ phone: 5551234 }), 'phone', 'Phone number must be text')
  })

  it('needs a password of 8 to 128 characters with all four kinds of character', async () => {
    expectFieldError(await attempt({ password: 'Ab1!xyz', confirmPassword: 'Ab1!xyz' }), 'password', 'Password must be at least 8 characters')
    for (const password of ['lowercase-only1!', 'UPPERCASE-ONLY1!', 'No-Digits-Here!', 'NoSpecial12345', 'Wrong#Special1']) {
      expectFieldError(await attempt({ password, confirmPassword: password }), 'password', RULE)
    }
    const long = `Aa1!${'z'.repeat(125)}`
    expectFieldError(await attempt({ password: long, confirmPassword: long }), 'password', 'Password must be at most 128 characters')
    const huge = `Aa1!${'z'.repeat(100_000)}`
    expectFieldError(await attempt({ password: huge, confirmPassword: huge }), 'password', 'Password must be at most 128 characters')
  })

  it('reports a confirmation that differs on confirmPassword', async () => {
    const response = await attempt({ password: STRONG_PASSWORD, confirmPassword: `${STRONG_PASSWORD} ` })
    const body = expectFieldError(response, 'confirmPassword', "Passwords don't match")
    expect(body.errors!.map((e) => e.field)).toEqual(['confirmPassword'])
    expectFieldError(await attempt({ confirmPassword: undefined }), 'confirmPassword', "Passwords don't match")
  })

  it('reports every wrong field at once', async () => {
    const response = await attempt({ name: 'A', email: 'nope', password: 'short', confirmPassword: 'other' })
    const body = expectFailure(response, 400, 'VALIDATION_ERROR')
    expect(body.errors!.map((e) => e.field)).toEqual(expect.arrayContaining(['name', 'email', 'password']))
  })

  it('refuses common passwords that pass the rule, and passwords containing the e-mail name', async () => {
    for (const password of ['Password1!', 'Welcome1!', 'P@ssw0rd2024!', 'Qwerty123!']) {
      expectFieldError(await attempt({ password, confirmPassword: password }), 'password', COMMON)
    }
    const email = `katherine.johnson+${Date.now()}@example.com`
    for (const password of ['Katherine.Johnson7!', 'KatherineJohnson7!', 'Johnson-1918-Rocks!']) {
      expectFieldError(await attempt({ email, password, confirmPassword: password }), 'password', CONTAINS_EMAIL)
    }
    expect(await usersNamed(email)).toEqual([])
  })

  it('refuses fields it does not know, and wrong types, without a 500', async () => {
    expectFieldError(await attempt({ isAdmin: true }), 'isAdmin', 'Unrecognized field "isAdmin"')
    for (const body of [[], 'a string', 42, null, { name: { $gt: '' } }, { email: ['a@b.com'] }, { password: { length: 10 } }]) {
      const response = await t.request('POST', '/api/auth/register', { body })
      expect(response.statusCode, JSON.stringify(body)).toBe(400)
      expect(response.json()).toMatchObject({ success: false, requestId: expect.any(String) })
    }
  })
})

describe('long passphrases', () => {
  // 64 to 128 characters, spaces at both ends and inside, letters outside ASCII.
  const passphrase = '  Grüße aus Köln: 7 Zebras tanzen über den Fluß & singen «ça va»  '

  it('are accepted as typed: exactly the same string signs in, a trimmed one does not', async () => {
    expect(passphrase.length).toBeGreaterThanOrEqual(64)
    const visitor: Visitor = newVisitor({ password: passphrase })
    await registerAndVerify(t, visitor)

    expect((await t.login(visitor.email, passphrase)).statusCode).toBe(200)
    expectFailure(await t.login(visitor.email, passphrase.trim()), 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
    expectFailure(await t.login(visitor.email, passphrase.slice(0, -1)), 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
  })

  it('count characters, not bytes: 128 characters of any script are accepted, 129 are not', async () => {
    const atLimit = `Aa1! ${'ж'.repeat(123)}`
    expect([...atLimit]).toHaveLength(128)
    const visitor = newVisitor({ password: atLimit })
    await registerAndVerify(t, visitor)
    expect((await t.login(visitor.email, atLimit)).statusCode).toBe(200)

    const emoji = `Foxes run 7! ${'🦊'.repeat(115)}`
    expect([...emoji]).toHaveLength(128)
    expect((await register(t, newVisitor({ password: emoji }))).statusCode).toBe(201)

    const overLimit = `${atLimit}ж`
    const refused = await t.request('POST', '/api/auth/register', {
      body: { ...newVisitor(), password: overLimit, confirmPassword: overLimit },
    })
    expectFieldError(refused, 'password', 'Password must be at most 128 characters')
  })

  it('of 100 KB are refused at sign-in before any hashing', async () => {
    const user = await t.createUser()
    const response = await t.login(user.email, `${user.password}${'x'.repeat(100_000)}`)
    expectFieldError(response, 'password', 'Password must be at most 128 characters')
  })
})

describe('a request body that is not what the API takes', () => {
  const json = JSON.stringify({ email: 'someone@example.com', password: STRONG_PASSWORD })
  const raw = (payload: string | Buffer, contentType: string, url = '/api/auth/login') => t.request('POST', url, { payload, headers: { 'content-type': contentType } })

  it('is a 415 when it is not JSON, even if it looks like JSON', async () => {
    const message = 'Content-Type must be application/json'
    expectFailure(await raw(json, 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE', message)
    expectFailure(await raw('email=a%40b.com&password=x', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE', message)
    expectFailure(await raw(json, 'multipart/form-data; boundary=x'), 415, 'UNSUPPORTED_MEDIA_TYPE', message)
    expectFailure(await raw(json, 'application/xml', '/api/auth/register'), 415, 'UNSUPPORTED_MEDIA_TYPE', message)
  })

  it('is a 400 when the JSON is malformed or empty', async () => {
    expectFailure(await raw('{"email": "someone@example.com", ', 'application/json'), 400, 'BAD_REQUEST', 'Request body is not valid JSON')
    expectFailure(await raw("{'email': 'x'}", 'application/json'), 400, 'BAD_REQUEST', 'Request body is not valid JSON')
    expectFailure(await raw('', 'application/json'), 400, 'BAD_REQUEST', 'Request body is empty')
  })

  it('is a 400 when it names __proto__ or constructor.prototype, and nothing is polluted', async () => {
    const poisoned = [
      '{"email":"someone@example.com","password":"x","__proto__":{"role":"ADMIN","polluted":true}}',
      '{"email":"someone@example.com","password":"x","constructor":{"prototype":{"polluted":true}}}',
      '{"name":"A name","nested":{"__proto__":{"polluted":true}}}',
    ]
    for (const payload of poisoned) {
      for (const url of ['/api/auth/login', '/api/auth/register', '/api/auth/forgot-password']) {
        const response = await raw(payload, 'application/json', url)
        expectFailure(response, 400, 'BAD_REQUEST', 'Request body contains a forbidden property name')
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(({} as Record<string, unknown>).role).toBeUndefined()
  })

  it('is a 413 when it is over 1 MB', async () => {
    const big = JSON.stringify({ email: 'someone@example.com', password: 'x'.repeat(1024 * 1024) })
    expectFailure(await raw(big, 'application/json'), 413, 'PAYLOAD_TOO_LARGE', 'Request body is too large')
    expectFailure(await raw(big, 'application/json', '/api/auth/register'), 413, 'PAYLOAD_TOO_LARGE', 'Request body is too large')
  })

  it('is a 4xx, never a 500, when deeply nested or huge in shape', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`
    const response = await raw(deep, 'application/json')
    expect(response.statusCode).toBe(400)
    const wide = JSON.stringify({ email: Array.from({ length: 50_000 }, () => 'a@b.com'), password: 'x' })
    expect((await raw(wide, 'application/json')).statusCode).toBe(400)
  })
})
