import { sql } from 'kysely'
import * as client from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deletionTuning, detachActivity } from '~server/data/own-data/account-deletion'
import { type SignedIn, useTestApp } from '../../support/test-app'
import { protocolError, startLogoutReceiver } from '../../support/oidc'
import { SoftwareAuthenticator } from '../../support/software-authenticator'
import { expectFieldError, mailTo } from '../auth/helpers'
import { codeAt, turnOnTwoFactor, wrongCode } from '../auth/two-factor-helpers'
import { as, countWhere, expectFailure, expectSuccess } from '../helpers/requests'
import { quickSignIn } from '../helpers/users'
import { type RichAccount, richAccount } from './rich-account'

/**
 * Deleting one's own account (contract section 15): with the password (and the second step when
 * two-factor is on) or a passkey, one transaction removes the account and everything it owns;
 * every session and every app's tokens are refused at the next request, the apps hear a
 * back-channel logout, the last e-mail goes out in the person's language, and the activity log
 * keeps its entries with their user shown as unknown. A wrong proof, a missing code, an ADMIN, a
 * request without the session's CSRF token: refused, nothing changed.
 */
const t = useTestApp()
let receiver: Awaited<ReturnType<typeof startLogoutReceiver>>
let admin: SignedIn

beforeAll(async () => {
  receiver = await startLogoutReceiver(t)
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
})
afterAll(async () => {
  await receiver?.close()
})

const deleteAccount = (user: Pick<SignedIn, 'accessToken' | 'csrfToken'>, body: unknown, headers: Record<string, string> = {}) =>
  t.request('POST', '/api/auth/delete-account', { token: user.accessToken, csrf: user.csrfToken, body, headers })

const exists = async (userId: string) => (await countWhere(t, 'users', { id: userId })) === 1

/** What an account owns, row by row, besides its own row. */
async function ownedRows(userId: string): Promise<Record<string, number>> {
  const count = async (table: 'sessions' | 'passkeys' | 'pictures' | 'totp_credentials' | 'recovery_codes' | 'one_time_tokens', column = 'user_id') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where(column as 'user_id', '=', userId)
          .executeTakeFirstOrThrow()
      ).n,
    )
  const engine = await t.ctx.db
    .selectFrom('oidc_payloads')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', userId)
    .executeTakeFirstOrThrow()
  return {
    sessions: await count('sessions'),
    passkeys: await count('passkeys'),
    pictures: await count('pictures'),
    totp: await count('totp_credentials'),
    recoveryCodes: await count('recovery_codes'),
    links: await count('one_time_tokens'),
    appGrantsAndTokens: Number(engine.n),
  }
}

describe('deleting one’s own account with the password and the second step', () => {
  let account: RichAccount
  let entriesBefore: number

  beforeAll(async () => {
    account = await richAccount(t, { backchannelLogoutUri: receiver.uri })
    entriesBefore = await countWhere(t, 'activities', { user_id: account.person.id })
    t.clock.advance(60)
  })

  it('refuses a wrong password, then the right one without the code, then a wrong code: 400 each, nothing deleted, each attempt recorded', async () => {
    const { person } = account
    const owned = await ownedRows(person.id)
    expectFieldError(await deleteAccount(person, { password: 'Not-The-Password-1!' }), 'password', 'Current password is incorrect')
    expectFieldError(await deleteAccount(person, { password: person.password }), 'code', 'Invalid code')
    expectFieldError(await deleteAccount(person, { password: person.password, code: wrongCode(t, account.totpSecret) }), 'code', 'Invalid code')
    expectFieldError(await deleteAccount(person, { password: person.password, recoveryCode: 'abcd-efgh-jkmn-pqrs' }), 'recoveryCode', 'Invalid code')
    expect(await exists(person.id)).toBe(true)
    expect(await countWhere(t, 'activities', { user_id: person.id, activity: 'Failed account deletion' })).toBe(4)
    expect(await countWhere(t, 'activities', { user_id: person.id, activity: 'Failed account deletion', details: 'Wrong two-factor code' })).toBe(3)
    expect(await ownedRows(person.id)).toEqual(owned)
    expect((await as(t, person).get('/api/auth/me')).statusCode).toBe(200)
  })

  it('deletes the account and everything it owns with the password and the app’s code', async () => {
    const { person } = account
    // A reset link waiting in the account's mail: it dies with the account.
    expect((await t.request('POST', '/api/auth/forgot-password', { body: { email: person.email } })).statusCode).toBe(200)
    await t.deliverMail()
    const owned = await ownedRows(person.id)
    expect(owned).toMatchObject({ passkeys: 1, pictures: 1, totp: 1, recoveryCodes: 10 })
    expect(owned.sessions).toBeGreaterThanOrEqual(3)
    expect(owned.appGrantsAndTokens).toBeGreaterThanOrEqual(3)

    const answer = await deleteAccount(person, { password: person.password, code: codeAt(t, account.totpSecret) }, { 'accept-language': 'fr-FR,fr;q=0.9' })
    expect(answer.json()).toEqual({ success: true, message: 'Your account has been deleted' })
    expect(await exists(person.id)).toBe(false)
    expect(await ownedRows(person.id)).toEqual({ sessions: 0, passkeys: 0, pictures: 0, totp: 0, recoveryCodes: 0, links: 0, appGrantsAndTokens: 0 })
  })

  it('ends every session: this one, the other device, and their refresh tokens, from the next request', async () => {
    const { person, otherDevice } = account
    expectFailure(await as(t, person).get('/api/auth/me'), 401)
    expectFailure(await t.request('GET', '/api/auth/me', { token: otherDevice.accessToken }), 401)
    expectFailure(await t.request('POST', '/api/auth/refresh-token', { body: { refreshToken: otherDevice.refreshToken } }), 401)
    expectFailure(await t.request('POST', '/api/auth/refresh-token', { body: { refreshToken: person.refreshToken } }), 401)
  })

  it('ends the app’s access: its refresh token, access token and introspection fail, and it hears a back-channel logout', async () => {
    const { config, appTokens, person, application } = account
    expect(await protocolError(client.refreshTokenGrant(config, appTokens.refresh_token!))).toBe('invalid_grant')
    expect(await protocolError(client.fetchUserInfo(config, appTokens.access_token, person.id))).toBe('invalid_token')
    expect((await client.tokenIntrospection(config, appTokens.access_token)).active).toBe(false)
    await t.runtime.logoutSender.drain()
    await receiver.settled()
    const logout = receiver.received.find((entry) => entry.claims.sub === person.id)
    expect(logout, 'a back-channel logout for the deleted account').toBeDefined()
    expect(logout!.claims).toMatchObject({ aud: application.id, sid: appTokens.claims()!.sid })
  })

  it('sends the last e-mail, in the language of the request', async () => {
    const mails = await mailTo(t, account.person.email)
    const last = mails.at(-1)!
    expect(last.subject).toBe('Votre compte a été supprimé - Accounts')
    expect(last.text).toContain(`Votre compte ${account.person.email} a été supprimé à votre demande`)
    expect(last.links).toEqual([])
  })

  it('keeps the activity entries, their user shown as unknown, with one saying who deleted the account', async () => {
    const { person } = account
    const kept = await t.ctx.db
      .selectFrom('activities')
      .select(['activity', 'details', 'user_id', 'kind'])
      .where('activity', 'like', `Deleted account %${person.email}%`)
      .execute()
    expect(kept).toEqual([
      { activity: `Deleted account Olivia Renamed (${person.email})`, details: 'role: CLIENT; deleted by its owner', user_id: null, kind: 'deleted' },
    ])
    expect(await countWhere(t, 'activities', { user_id: person.id })).toBe(0)
    const orphaned = await t.ctx.db.selectFrom('activities').select('id').where('user_id', 'is', null).where('actor_id', 'is', null).execute()
    expect(orphaned.length).toBeGreaterThanOrEqual(entriesBefore + 1)
    const logs = expectSuccess(await as(t, admin).get(`/api/admin/activity-logs?search=${encodeURIComponent('Deleted account Olivia')}`)).data
    expect(logs.activities).toHaveLength(1)
    expect(logs.activities[0]).toMatchObject({ activity: `Deleted account Olivia Renamed (${person.email})`, user: null })
  })

  it('leaves the address free: signing in fails as for an unknown address, and registering again works', async () => {
    const { person } = account
    expectFailure(await t.login(person.email, person.password), 401, 'Invalid credentials', 'INVALID_CREDENTIALS')
    const again = await t.request('POST', '/api/auth/register', {
      body: { name: 'Olivia Again', email: person.email, password: 'Fresh-Start-2026!', confirmPassword: 'Fresh-Start-2026!' },
    })
    expect(again.statusCode, again.body).toBe(201)
  })
})

describe('other proofs', () => {
  it('takes a recovery code for the second step, and uses it up', async () => {
    const person = await t.signIn({ name: 'Recovery Code' })
    const { recoveryCodes } = await turnOnTwoFactor(t, person)
    expectSuccess(await deleteAccount(person, { password: person.password, recoveryCode: recoveryCodes[3] }))
    expect(await exists(person.id)).toBe(false)
  })

  it('takes the password alone when two-factor is off, and says the e-mail in English by default', async () => {
    const person = await t.signIn({ name: 'Password Only' })
    expectSuccess(await deleteAccount(person, { password: person.password }))
    expect(await exists(person.id)).toBe(false)
    const last = (await mailTo(t, person.email)).at(-1)!
    expect(last.subject).toBe('Your account was deleted - Accounts')
    expect(last.text).toContain('was deleted at your request')
  })

  it.each([
    ['German', 'de', 'Ihr Konto wurde gelöscht - Accounts'],
    ['Spanish', 'es-ES,es;q=0.9', 'Tu cuenta se ha eliminado - Accounts'],
  ])('writes the last e-mail in %s', async (_language, header, subject) => {
    const person = await t.signIn()
    expectSuccess(await deleteAccount(person, { password: person.password }, { 'accept-language': header }))
    expect((await mailTo(t, person.email)).at(-1)!.subject).toBe(subject)
  })

  describe('a passkey, which counts as two factors', () => {
    async function withPasskey(options: { twoFactor?: boolean } = {}) {
      const person = await t.signIn({ name: 'Passkey Owner' })
      if (options.twoFactor) await turnOnTwoFactor(t, person)
      const authenticator = new SoftwareAuthenticator('http://app.test')
      const creation = expectSuccess(await as(t, person).post('/api/auth/passkeys/registration/options', undefined)).data
      expectSuccess(await as(t, person).post('/api/auth/passkeys/registration', { response: authenticator.create(creation) }), 201)
      return { person, authenticator }
    }
    const confirmationOptions = async (person: SignedIn) => expectSuccess(await as(t, person).post('/api/auth/passkeys/confirmation/options', undefined)).data

    it('offers the owner’s passkeys, user verification required, for the app’s host name', async () => {
      const { person, authenticator } = await withPasskey()
      const options = await confirmationOptions(person)
      expect(options).toMatchObject({ rpId: 'app.test', userVerification: 'required', allowCredentials: [{ id: authenticator.credentials[0]!.id, type: 'public-key' }] })
    })

    it('deletes the account with a passkey’s answer, with two-factor on and no code', async () => {
      const { person, authenticator } = await withPasskey({ twoFactor: true })
      const answer = await deleteAccount(person, { passkeyResponse: authenticator.get(await confirmationOptions(person)) })
      expectSuccess(answer)
      expect(await exists(person.id)).toBe(false)
      expect(
        await countWhere(t, 'activities', { activity: `Deleted account Passkey Owner (${person.email})`, details: 'role: CLIENT; deleted by its owner with a passkey' }),
      ).toBe(1)
    })

    it('refuses a sign-in’s challenge, another account’s challenge or passkey, a replay, and a passkey without user verification', async () => {
      const { person, authenticator } = await withPasskey()
      const stranger = await withPasskey()
      const refused = async (passkeyResponse: unknown) => {
        expectFailure(await deleteAccount(person, { passkeyResponse }), 400, 'The passkey could not be verified. Please try again.', 'PASSKEY_REJECTED')
        expect(await exists(person.id)).toBe(true)
      }
      const signInOptions = expectSuccess(await t.request('POST', '/api/auth/passkeys/authentication/options')).data
      await refused(authenticator.get(signInOptions))
      await refused(authenticator.get(await confirmationOptions(stranger.person)))
      await refused(stranger.authenticator.get(await confirmationOptions(person), { credentialId: stranger.authenticator.credentials[0]!.id }))
      await refused(authenticator.get(await confirmationOptions(person), { userVerified: false }))
      await refused(authenticator.get(await confirmationOptions(person), { origin: 'https://evil.example' }))
      const answered = authenticator.get(await confirmationOptions(person))
      const stolen = structuredClone(answered)
      expectSuccess(await deleteAccount(person, { passkeyResponse: answered }))
      // The same answer again, for another session of the deleted account: its session is over anyway.
      expectFailure(await deleteAccount(person, { passkeyResponse: stolen }), 401)
      expect(await exists(stranger.person.id)).toBe(true)
      expect(await countWhere(t, 'activities', { user_id: stranger.person.id, activity: 'Failed account deletion' })).toBe(0)
    })
  })
})

describe('a long history', () => {
  it('keeps every entry about the account and every entry it made about others, set free a batch at a time, its name and address gone from their search text', async () => {
    const person = await t.signIn({ name: 'Long Timer' })
    const other = await quickSignIn(t, { name: 'Someone Else' })
    await sql`
      INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
      SELECT ${person.id}, ${person.id}, 'logged in', 'Logged in', 'own entry ' || n, '192.0.2.1', timestamptz '2026-01-01 00:00:00+00' + n * interval '1 minute'
      FROM generate_series(1, 345) AS n`.execute(t.ctx.db)
    await sql`
      INSERT INTO activities (user_id, actor_id, actor_name, kind, activity, details, ip_address, created_at)
      SELECT ${other.id}, ${person.id}, 'Long Timer', 'updated', 'Updated user Someone Else', 'made entry ' || n, '192.0.2.1', timestamptz '2026-01-01 00:00:00+00' + n * interval '1 minute'
      FROM generate_series(1, 120) AS n`.execute(t.ctx.db)
    const batch = deletionTuning.detachBatch
    deletionTuning.detachBatch = 100
    try {
      expectSuccess(await deleteAccount(person, { password: person.password }))
    } finally {
      deletionTuning.detachBatch = batch
    }
    const own = await t.ctx.db.selectFrom('activities').select(['user_id', 'actor_id', 'search_text']).where('details', 'like', 'own entry %').execute()
    expect(own).toHaveLength(345)
    expect(own.every((entry) => entry.user_id === null && entry.actor_id === null && !entry.search_text.includes(person.email))).toBe(true)
    const made = await t.ctx.db.selectFrom('activities').select(['user_id', 'actor_id', 'actor_name']).where('details', 'like', 'made entry %').execute()
    expect(made).toHaveLength(120)
    expect(made.every((entry) => entry.user_id === other.id && entry.actor_id === null && entry.actor_name === 'Long Timer')).toBe(true)
  })

  it('sets every entry free across batches by itself, without the foreign keys’ help', async () => {
    const person = await quickSignIn(t, { name: 'Batch Crosser' })
    await sql`
      INSERT INTO activities (user_id, actor_id, kind, activity, ip_address, created_at)
      SELECT CASE WHEN n % 3 = 0 THEN NULL ELSE ${person.id}::uuid END, ${person.id}, 'logged in', 'Logged in', '192.0.2.1', timestamptz '2026-01-01 00:00:00+00' + n * interval '1 minute'
      FROM generate_series(1, 250) AS n`.execute(t.ctx.db)
    const linked = () => countWhere(t, 'activities', { user_id: person.id }).then(async (about) => about + (await countWhere(t, 'activities', { actor_id: person.id })))
    expect(await linked()).toBeGreaterThan(250)
    const batch = deletionTuning.detachBatch
    deletionTuning.detachBatch = 40
    try {
      // The account stays: only the batches set its entries free.
      const detached = await t.ctx.db.transaction().execute((trx) => detachActivity(trx, person.id))
      expect(detached).toBe(251)
    } finally {
      deletionTuning.detachBatch = batch
    }
    expect(await linked()).toBe(0)
  })
})

describe('refusals that change nothing', () => {
  it('tells an ADMIN why not, whatever the proof, before asking for it', async () => {
    const other = await quickSignIn(t, { role: 'ADMIN', name: 'Second Admin' })
    const answer = await deleteAccount(other, { password: other.password })
    expectFailure(answer, 403, 'Admin users cannot be deleted', 'ADMIN_DELETE')
    expectFailure(await deleteAccount(other, { password: 'Wrong-Password-1!' }), 403, 'Admin users cannot be deleted', 'ADMIN_DELETE')
    expect(await exists(other.id)).toBe(true)
    expect((await as(t, other).get('/api/auth/me')).statusCode).toBe(200)
  })

  it('keeps the last active ADMIN: the only admin cannot delete themselves', async () => {
    const admins = await t.ctx.db.selectFrom('users').select('id').where('role', '=', 'ADMIN').where('status', '=', 'ACTIVE').execute()
    for (const { id } of admins) if (id !== admin.id) await t.ctx.db.updateTable('users').set({ status: 'INACTIVE' }).where('id', '=', id).execute()
    expectFailure(await deleteAccount(admin, { password: admin.password }), 403, 'Admin users cannot be deleted', 'ADMIN_DELETE')
    expect(await countWhere(t, 'users', { role: 'ADMIN', status: 'ACTIVE' })).toBe(1)
  })

  it('refuses a person promoted to ADMIN between the check of the proof and the deletion', async () => {
    const person = await t.signIn()
    // The role changes under a live session (as another admin's edit would, without ending it here).
    await t.ctx.db.updateTable('users').set({ role: 'ADMIN' }).where('id', '=', person.id).execute()
    expectFailure(await deleteAccount(person, { password: person.password }), 403, 'Admin users cannot be deleted', 'ADMIN_DELETE')
    expect(await exists(person.id)).toBe(true)
  })

  it('refuses a request without the session’s CSRF token, or with another session’s (403)', async () => {
    const person = await t.signIn()
    const other = await quickSignIn(t)
    for (const csrf of [undefined, other.csrfToken, 'forged']) {
      const answer = await t.request('POST', '/api/auth/delete-account', { token: person.accessToken, ...(csrf ? { csrf } : {}), body: { password: person.password } })
      expectFailure(answer, 403, 'Invalid or missing CSRF token', 'CSRF_INVALID')
    }
    expect(await exists(person.id)).toBe(true)
    expect(await countWhere(t, 'activities', { user_id: person.id, activity: 'Failed account deletion' })).toBe(0)
  })

  it('is for the signed-in owner: no token is a 401', async () => {
    expectFailure(await t.request('POST', '/api/auth/delete-account', { body: { password: 'Anything-1!' } }), 401, undefined, 'AUTH_REQUIRED')
  })

  it.each([
    ['no proof', {}, 'password', 'Enter your password, or confirm with a passkey'],
    [
      'a password and a passkey',
      {
        password: 'Anything-1!',
        passkeyResponse: {
          id: 'AA',
          rawId: 'AA',
          type: 'public-key',
          response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' },
          clientExtensionResults: {},
        },
      },
      'password',
      'Enter your password, or confirm with a passkey',
    ],
    ['a code and a recovery code', { password: 'Anything-1!', code: '123456', recoveryCode: 'abcd-efgh-jkmn-pqrs' }, 'code', 'Enter a code or a recovery code, not both'],
    ['a code that is not 6 digits', { password: 'Anything-1!', code: '12345a' }, 'code', 'Code must be 6 digits'],
    ['a field it does not know', { password: 'Anything-1!', confirm: true }, undefined, undefined],
  ])('answers %s with a 400 and changes nothing', async (_case, body, field, message) => {
    const person = await quickSignIn(t)
    const answer = await deleteAccount(person, body)
    const failure = expectFailure(answer, 400, undefined, 'VALIDATION_ERROR')
    if (field)
      expect(
        failure.errors?.some((error) => error.field === field && (message === undefined || error.message === message)),
        JSON.stringify(failure.errors),
      ).toBe(true)
    expect(await exists(person.id)).toBe(true)
  })

  it('deletes once when two requests race with the right password: one 200, the other a 401, never a 5xx', async () => {
    const person = await t.signIn()
    const answers = await Promise.all([deleteAccount(person, { password: person.password }), deleteAccount(person, { password: person.password })])
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 401])
    expect(await exists(person.id)).toBe(false)
    expect(await countWhere(t, 'activities', { activity: `Deleted account Test User (${person.email})` })).toBe(1)
  })
})

describe('throttling', () => {
  const limited = useTestApp({ RATE_LIMIT: 'on' })

  it('counts every attempt, a wrong code after the right password included, and refuses the rest with a 429', async () => {
    const person = await limited.signIn()
    const { secret } = await turnOnTwoFactor(limited, person)
    const attempt = () =>
      limited.request('POST', '/api/auth/delete-account', {
        token: person.accessToken,
        csrf: person.csrfToken,
        body: { password: person.password, code: wrongCode(limited, secret) },
      })
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) statuses.push((await attempt()).statusCode)
    expect(statuses).toEqual([...Array<number>(10).fill(400), 429])
    const throttled = await limited.request('POST', '/api/auth/delete-account', {
      token: person.accessToken,
      csrf: person.csrfToken,
      body: { password: person.password, code: codeAt(limited, secret) },
    })
    expect(throttled.statusCode).toBe(429)
    expect(throttled.headers['retry-after']).toBeDefined()
    expect((await limited.ctx.db.selectFrom('users').select('id').where('id', '=', person.id).execute()).length).toBe(1)
  })
})
