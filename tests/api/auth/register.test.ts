import { describe, expect, it } from 'vitest'
import { useTestApp } from '../../support/test-app'
import { activitiesOf, expectFailure, expectFieldError, linkTo, mailTo, newVisitor, register, tokenOf, userIdOf, verificationLink } from './helpers'

// One application for the whole file: each story uses accounts of its own.
const t = useTestApp()

describe('a visitor registers', () => {
  it('gets a 201 with their address, and a verification e-mail linking to the web app', async () => {
    const visitor = newVisitor({ phone: '+44 20 7946 0958' })
    const response = await register(t, visitor)

    expect(response.statusCode).toBe(201)
    expect(response.json()).toEqual({
      success: true,
      message: 'Registration successful! Please check your email to verify your account.',
      data: { email: visitor.email },
    })
    const mails = await mailTo(t, visitor.email)
    expect(mails.map((m) => m.subject)).toEqual(['Verify your email address - Accounts'])
    const link = linkTo(mails[0]!, '/verify-email')
    expect(link.searchParams.get('email')).toBe(visitor.email)
    tokenOf(link)
  })

  it('is stored as an unverified, active client with the given details', async () => {
    const visitor = newVisitor({ phone: '+1 (555) 010-9999' })
    await register(t, visitor)
    const row = await t.ctx.db.selectFrom('users').selectAll().where('email', '=', visitor.email).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ name: visitor.name, phone: visitor.phone, role: 'CLIENT', status: 'ACTIVE', email_verified_at: null })
    expect(row.password_hash).toMatch(/^\$argon2id\$/)
    expect(row.password_hash).not.toContain(visitor.password)
  })

  it('may leave the phone out or empty', async () => {
    for (const phone of [undefined, '']) {
      const visitor = newVisitor(phone === undefined ? {} : { phone })
      const response = await register(t, visitor)
      expect(response.statusCode, response.body).toBe(201)
      const row = await t.ctx.db.selectFrom('users').select('phone').where('email', '=', visitor.email).executeTakeFirstOrThrow()
      expect(row.phone).toBeNull()
    }
  })

  it('keeps the address in lower case, whatever case it was typed in', async () => {
    const visitor = newVisitor()
    const typed = visitor.email.replace('visitor', 'ViSiToR').toUpperCase()
    const response = await register(t, { ...visitor, email: typed })
    expect(response.statusCode).toBe(201)
    expect(response.json().data).toEqual({ email: visitor.email })
    expect((await mailTo(t, visitor.email)).length).toBe(1)
  })

  it('cannot be told to build its links from the Host header or a forged X-Forwarded-Host', async () => {
    // A foreign Host is refused before any route (tests/api/security/dns-rebinding.test.ts); a
    // loopback one is served, and must not end up in the link either.
    const visitor = newVisitor()
    const response = await register(t, visitor, {
      headers: { host: 'localhost:8123', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
    })
    expect(response.statusCode).toBe(201)
    const link = await verificationLink(t, visitor.email)
    expect(link.origin).toBe('http://app.test')
    const [mail] = await mailTo(t, visitor.email)
    expect(mail!.text).not.toContain('evil.example')
    expect(mail!.text).not.toContain('localhost:8123')
  })

  it('cannot sign in before following the link, and is told why only with the right password', async () => {
    const visitor = newVisitor()
    await register(t, visitor)
    expectFailure(await t.login(visitor.email, visitor.password), 403, 'EMAIL_NOT_VERIFIED', 'Email not verified')
    expectFailure(await t.login(visitor.email, `${visitor.password}x`), 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
  })

  it('leaves an activity entry "Registered" with the client address', async () => {
    const visitor = newVisitor()
    await register(t, visitor, { remoteAddress: '198.51.100.23' })
    const entries = await activitiesOf(t, await userIdOf(t, visitor.email))
    expect(entries).toEqual([expect.objectContaining({ kind: 'registered', activity: 'Registered', ip_address: '198.51.100.23' })])
  })

  it('cannot choose its own role, status, verification or id (400, nothing created)', async () => {
    const extras = [{ role: 'ADMIN' }, { status: 'ACTIVE' }, { emailVerified: true }, { id: '00000000-0000-0000-0000-000000000001' }]
    for (const extra of extras) {
      const visitor = newVisitor()
      const response = await t.request('POST', '/api/auth/register', {
        body: { ...visitor, confirmPassword: visitor.password, ...extra },
      })
      const field = Object.keys(extra)[0]!
      expectFieldError(response, field, `Unrecognized field "${field}"`)
      const row = await t.ctx.db.selectFrom('users').select('id').where('email', '=', visitor.email).executeTakeFirst()
      expect(row).toBeUndefined()
      expect(await mailTo(t, visitor.email)).toEqual([])
    }
  })
})

describe('someone registers with an address that already has an account', () => {
  it('gets exactly the answer a new address gets, and the owner is warned by e-mail', async () => {
    const owner = await t.createUser({ name: 'Original Owner' })
    const fresh = newVisitor()
    const forNew = await register(t, fresh)
    const intruder = newVisitor({ email: owner.email.toUpperCase(), name: 'Somebody Else', password: 'Another-Pass-42!' })
    const forTaken = await register(t, intruder)

    expect(forTaken.statusCode).toBe(201)
    expect(forTaken.statusCode).toBe(forNew.statusCode)
    expect(forTaken.json()).toEqual({ ...forNew.json(), data: { email: owner.email } })
    expect(Object.keys(forTaken.headers).sort()).toEqual(Object.keys(forNew.headers).sort())

    const mails = await mailTo(t, owner.email)
    expect(mails.map((m) => m.subject)).toEqual(['Someone tried to register with your email address - Accounts'])
    expect(mails[0]!.text).toContain('Hello Original Owner,')
    expect(mails[0]!.links).toEqual(expect.arrayContaining(['http://app.test/login', 'http://app.test/forgot-password']))
  })

  it('changes nothing about the existing account', async () => {
    const owner = await t.createUser({ name: 'Keeps Her Name' })
    const before = await t.ctx.db.selectFrom('users').selectAll().where('email', '=', owner.email).executeTakeFirstOrThrow()
    await register(t, newVisitor({ email: owner.email, name: 'Takeover Attempt', password: 'Another-Pass-42!' }))

    const after = await t.ctx.db.selectFrom('users').selectAll().where('email', '=', owner.email).executeTakeFirstOrThrow()
    expect(after).toEqual(before)
    expect((await t.login(owner.email, owner.password)).statusCode).toBe(200)
    expectFailure(await t.login(owner.email, 'Another-Pass-42!'), 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
  })
})
