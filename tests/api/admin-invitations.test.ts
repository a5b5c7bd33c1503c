import { beforeAll, describe, expect, it } from 'vitest'
import { adminRuleMessages } from '~shared/schemas/admin'
import { messages } from '~shared/schemas/fields'
import { type SignedIn, STRONG_PASSWORD, uniqueEmail, useTestApp } from '../support/test-app'
import { activitiesOf, expectFailure as expectExactFailure, expectFieldError, mailTo, tokenOf } from './auth/helpers'
import { as, expectFailure, expectSuccess } from './helpers/requests'
import { quickSignIn, quickUser } from './helpers/users'

const INVALID = 'Invalid or expired invitation link'
const CHOSEN = 'Joined-Today-2026!'

// One application for the whole file: each story uses accounts of its own.
const t = useTestApp()

let admin: SignedIn
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
})

/** After the clock jumped past the access token's life: the admin signs in again. */
async function signInAgain() {
  const data = (await t.login(admin.email, admin.password)).json().data
  admin = { ...admin, accessToken: data.accessToken, refreshToken: data.refreshToken, csrfToken: data.csrfToken }
}

const invite = (body: Record<string, unknown>) => as(t, admin).post('/api/admin/users', body)
const accept = (token: string, password = CHOSEN, confirmPassword = password) =>
  t.request('POST', `/api/auth/accept-invite/${token}`, { body: { password, confirmPassword } })

/** The newest invitation link mailed to an address, checked to be on APP_URL's accept page. */
async function invitationLink(email: string): Promise<URL> {
  const mails = (await mailTo(t, email)).filter((mail) => mail.subject === 'You are invited - Accounts')
  expect(mails.length, `invitation mail to ${email}`).toBeGreaterThan(0)
  const links = mails
    .at(-1)!
    .links.map((link) => new URL(link))
    .filter((url) => url.pathname === '/accept-invite')
  expect(links).toHaveLength(1)
  expect(links[0]!.origin).toBe('http://app.test')
  return links[0]!
}

async function invited(overrides: Record<string, unknown> = {}) {
  const email = uniqueEmail('invitee')
  const response = await invite({ name: 'Grace Hopper', email, role: 'DEVELOPER', ...overrides })
  const body = expectSuccess(response, 201)
  return { user: body.data, email, token: tokenOf(await invitationLink(email)) }
}

describe('an admin invites a person', () => {
  it('creates an ACTIVE, unverified account and mails a link to choose a password', async () => {
    const email = uniqueEmail('Invitee').toUpperCase()
    const body = expectSuccess(await invite({ name: '  Grace Hopper ', email, role: 'MODERATOR', phone: '+1 555 0100' }), 201)
    expect(body.message).toBe('Invitation sent')
    expect(body.data).toEqual({
      id: expect.any(String),
      name: 'Grace Hopper',
      email: email.toLowerCase(),
      phone: '+1 555 0100',
      role: 'MODERATOR',
      status: 'ACTIVE',
      emailVerified: false,
      profilePicture: null,
      createdAt: '2026-06-01T12:00:00.000Z',
      updatedAt: '2026-06-01T12:00:00.000Z',
    })
    const mail = (await mailTo(t, email.toLowerCase())).at(-1)!
    expect(mail.text).toContain('Ada Admin has created an account for you')
    expect(mail.text).toContain('expires in 7 days')
    tokenOf(await invitationLink(email.toLowerCase()))
    // The token is kept only as a hash.
    const stored = await t.ctx.db.selectFrom('one_time_tokens').selectAll().where('user_id', '=', body.data.id).executeTakeFirstOrThrow()
    expect(stored.purpose).toBe('invitation')
    expect(stored.token_hash.toString('hex')).not.toContain(Buffer.from(tokenOf(await invitationLink(email.toLowerCase()))).toString('hex'))
    expect(new Date(stored.expires_at).getTime() - new Date(stored.created_at).getTime()).toBe(7 * 24 * 3600 * 1000)
  })

  it("is written in the language of the admin's request", async () => {
    const email = uniqueEmail('invitee')
    const response = await t.request('POST', '/api/admin/users', {
      token: admin.accessToken,
      csrf: admin.csrfToken,
      body: { name: 'Severo Ochoa', email, role: 'CLIENT' },
      headers: { 'accept-language': 'es' },
    })
    expectSuccess(response, 201)
    const [mail] = await mailTo(t, email)
    expect(mail!.subject).toBe('Te han invitado - Accounts')
    expect(mail!.text).toContain('Ada Admin ha creado una cuenta para ti en Accounts.')
    expect(mail!.text).toContain('Aceptar invitación: http://app.test/accept-invite?token=')
  })

  it('records the invitation, naming the admin, in the same write', async () => {
    const { user } = await invited()
    const entry = await t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow()
    expect(entry).toMatchObject({ kind: 'registered', activity: `Invited Grace Hopper (${user.email})`, actor_id: admin.id, actor_name: 'Ada Admin' })
  })

  it('leaves the account without a usable password until the person chooses one', async () => {
    const { email } = await invited()
    expectExactFailure(await t.login(email, STRONG_PASSWORD), 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
    expectExactFailure(await t.login(email, ''), 400, 'VALIDATION_ERROR')
  })

  it('answers 409 for an address that has an account, whatever its case, and creates nothing', async () => {
    const existing = await quickUser(t)
    const before = await t.ctx.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    expectFailure(await invite({ name: 'Twice Over', email: existing.email.toUpperCase(), role: 'CLIENT' }), 409, adminRuleMessages.emailTaken, 'EMAIL_TAKEN')
    const after = await t.ctx.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
    expect(await mailTo(t, existing.email)).toEqual([])
  })

  it("refuses bad fields with the spec's messages, and unknown fields", async () => {
    expectFieldError(await invite({ name: 'G', email: uniqueEmail(), role: 'CLIENT' }), 'name', 'Name must be at least 2 characters')
    expectFieldError(await invite({ name: 'Grace', email: 'not-an-address', role: 'CLIENT' }), 'email', 'Invalid email address')
    expectFieldError(await invite({ name: 'Grace', email: uniqueEmail(), role: 'ROOT' }), 'role', 'Unknown role')
    expectFailure(await invite({ name: 'Grace', email: uniqueEmail() }), 400)
    expectFailure(await invite({ name: 'Grace', email: uniqueEmail(), role: 'CLIENT', status: 'SUSPENDED' }), 400)
    expectFailure(await invite({ name: 'Grace', email: uniqueEmail(), role: 'CLIENT', password: STRONG_PASSWORD }), 400)
    expectFailure(await invite({ name: 'Grace', email: uniqueEmail(), role: 'CLIENT', emailVerified: true }), 400)
    expectFailure(
      await t.request('POST', '/api/admin/users', { token: admin.accessToken, csrf: admin.csrfToken, payload: '[]', headers: { 'content-type': 'application/json' } }),
      400,
    )
  })
})

describe('the invited person accepts', () => {
  it('chooses a password, is signed in, and the address is verified', async () => {
    const { user, email, token } = await invited()
    const response = await accept(token)
    const body = expectSuccess(response)
    expect(body.data).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String), csrfToken: expect.any(String), user: expect.any(Object) })
    expect(body.data.user).toMatchObject({ id: user.id, email, emailVerified: true, status: 'ACTIVE', role: 'DEVELOPER' })
    expect(response.headers['x-csrf-token']).toBe(body.data.csrfToken)
    // Signed in: the tokens work at once, and the chosen password signs in later.
    const me = await t.request('GET', '/api/auth/me', { token: body.data.accessToken })
    expect(me.statusCode).toBe(200)
    expect((await t.login(email, CHOSEN)).statusCode).toBe(200)
    const entries = (await activitiesOf(t, user.id)).map((entry) => entry.activity)
    expect(entries).toEqual([`Invited Grace Hopper (${email})`, 'Accepted invitation', 'Logged in', 'Logged in'])
  })

  it('works once: a used link is the same 400 as an unknown one', async () => {
    const { token } = await invited()
    expectSuccess(await accept(token))
    expectExactFailure(await accept(token, 'Another-Try-2026!'), 400, 'INVALID_TOKEN', INVALID)
  })

  it('expires after 7 days (at the injected clock)', async () => {
    const { token, email } = await invited()
    t.clock.advance(7 * 24 * 3600 + 1)
    await signInAgain()
    expectExactFailure(await accept(token), 400, 'INVALID_TOKEN', INVALID)
    expectExactFailure(await t.login(email, CHOSEN), 401, 'INVALID_CREDENTIALS')
  })

  it('works until the last second of its 7 days', async () => {
    const { token } = await invited()
    t.clock.advance(7 * 24 * 3600 - 1)
    await signInAgain()
    expectSuccess(await accept(token))
  })

  it('answers guesses and malformed tokens with the same 400, revealing nothing', async () => {
    const { token } = await invited()
    const guesses = [
      'A'.repeat(43),
      token.slice(0, 42),
      `${token}x`,
      token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
      'not-a-token',
      '%00',
      '..%2F..%2Fetc',
      'x'.repeat(120),
    ]
    const answers = []
    for (const guess of guesses) answers.push(expectExactFailure(await accept(encodeURIComponent(guess)), 400, 'INVALID_TOKEN', INVALID))
    for (const answer of answers) expect(Object.keys(answer).sort()).toEqual(['code', 'message', 'requestId', 'success'])
    // The real link still works after all that.
    expectSuccess(await accept(token))
  })

  it("holds the password to the spec's rules, changing nothing on a refusal", async () => {
    const { token, email } = await invited()
    expectFieldError(await accept(token, 'short'), 'password', messages.passwordMin)
    expectFieldError(await accept(token, 'alllowercase1!'), 'password', messages.passwordRule)
    expectFieldError(await accept(token, CHOSEN, 'Different-2026!'), 'confirmPassword', messages.passwordsDontMatch)
    expectFieldError(await accept(token, 'Password1!'), 'password', expect.any(String) as unknown as string)
    const local = email.split('@')[0]!
    expectFieldError(await accept(token, `${local}-A1!`), 'password', expect.any(String) as unknown as string)
    expectFailure(await t.request('POST', `/api/auth/accept-invite/${token}`, { body: { password: CHOSEN, confirmPassword: CHOSEN, role: 'ADMIN' } }), 400)
    // Nothing was used up.
    expectSuccess(await accept(token))
  })

  it('refuses an account an admin suspended meanwhile, and leaves the link unused', async () => {
    const { user, token } = await invited()
    expectSuccess(await as(t, admin).put(`/api/admin/users/${user.id}`, { status: 'SUSPENDED' }))
    expectExactFailure(await accept(token), 403, 'ACCOUNT_SUSPENDED', 'Account is suspended')
    const row = await t.ctx.db.selectFrom('users').select('email_verified_at').where('id', '=', user.id).executeTakeFirstOrThrow()
    expect(row.email_verified_at).toBeNull()
    expectSuccess(await as(t, admin).put(`/api/admin/users/${user.id}`, { status: 'ACTIVE' }))
    expectSuccess(await accept(token))
  })

  it('lets two tabs race on one link: exactly one wins', async () => {
    const { token } = await invited()
    const [first, second] = await Promise.all([accept(token), accept(token, 'Other-Choice-2026!')])
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 400])
  })
})

describe('an admin resends an invitation', () => {
  it('mails a new link, and the older links die', async () => {
    const { user, email, token: first } = await invited()
    const body = expectSuccess(await as(t, admin).post(`/api/admin/users/${user.id}/invitation`, {}))
    expect(body.message).toBe('Invitation sent again')
    const second = tokenOf(await invitationLink(email))
    expect(second).not.toBe(first)
    expectExactFailure(await accept(first), 400, 'INVALID_TOKEN', INVALID)
    expectSuccess(await accept(second))
    const entry = await t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', user.id).where('activity', 'like', 'Resent%').executeTakeFirstOrThrow()
    expect(entry).toMatchObject({ activity: `Resent invitation to Grace Hopper (${email})`, actor_id: admin.id, actor_name: 'Ada Admin' })
  })

  it('refuses a user who has joined (409), an unknown one (404), an inactive one (409), and oneself (403)', async () => {
    const { user, token } = await invited()
    expectSuccess(await accept(token))
    expectFailure(await as(t, admin).post(`/api/admin/users/${user.id}/invitation`, {}), 409, adminRuleMessages.invitationAccepted, 'INVITATION_ACCEPTED')
    const verified = await quickUser(t)
    expectFailure(await as(t, admin).post(`/api/admin/users/${verified.id}/invitation`, {}), 409, adminRuleMessages.invitationAccepted)
    expectFailure(await as(t, admin).post('/api/admin/users/2f1b6a3e-7c4d-4e8f-9a0b-1c2d3e4f5a6b/invitation', {}), 404)
    expectFailure(await as(t, admin).post('/api/admin/users/not-an-id/invitation', {}), 404)
    const pending = await invited()
    expectSuccess(await as(t, admin).put(`/api/admin/users/${pending.user.id}`, { status: 'INACTIVE' }))
    expectFailure(await as(t, admin).post(`/api/admin/users/${pending.user.id}/invitation`, {}), 409, adminRuleMessages.invitationInactive, 'NOT_ACTIVE')
    expectFailure(await as(t, admin).post(`/api/admin/users/${admin.id}/invitation`, {}), 403, adminRuleMessages.noSelfEdit, 'SELF_EDIT')
  })

  it('retires the invitation when the admin changes the address, so the old inbox cannot join', async () => {
    const { user, token } = await invited()
    expectSuccess(await as(t, admin).put(`/api/admin/users/${user.id}`, { email: uniqueEmail('moved') }))
    expectExactFailure(await accept(token), 400, 'INVALID_TOKEN', INVALID)
  })

  it('retires the invitation once the person reset a password instead', async () => {
    const { email, token } = await invited()
    await t.request('POST', '/api/auth/forgot-password', { body: { email } })
    const reset = (await mailTo(t, email)).filter((mail) => mail.subject === 'Reset your password - Accounts').at(-1)!
    const resetToken = new URL(reset.links.find((link) => link.includes('/reset-password'))!).searchParams.get('token')!
    expect((await t.request('POST', `/api/auth/reset-password/${resetToken}`, { body: { password: CHOSEN, confirmPassword: CHOSEN } })).statusCode).toBe(200)
    expectExactFailure(await accept(token), 400, 'INVALID_TOKEN', INVALID)
  })
})
