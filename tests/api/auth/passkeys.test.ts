import crypto from 'node:crypto'
import { beforeEach, describe, expect, it } from 'vitest'
import { insertPasskey } from '~server/data/passkeys/passkeys'
import { countPasskeys, removeAllPasskeys } from '~server/use-cases/passkeys/remove-passkey'
import { type SignedIn, type TestApp, useTestApp } from '../../support/test-app'
import { coseKey, HAS_ML_DSA, SoftwareAuthenticator } from '../../support/software-authenticator'
import { as, countWhere } from '../helpers/requests'
import { quickSignIn } from '../helpers/users'
import { APP_ORIGIN, expectFailure } from './helpers'

/**
 * Passkeys (contract section 6): a software authenticator (ES256 keys, `none` attestation) adds a
 * passkey to a signed-in account and signs in with it, without a password; every response that
 * answers another challenge, a used one, another origin or RP ID, carries a bad signature or a
 * credential nobody (or a deleted or suspended account) holds is refused, with nothing created
 * and nobody signed in.
 */

const sessionsOf = (t: TestApp, userId: string) => countWhere(t, 'sessions', { user_id: userId })
const passkeysOf = (t: TestApp, userId: string) => countWhere(t, 'passkeys', { user_id: userId })

async function registrationOptions(t: TestApp, user: SignedIn) {
  const response = await as(t, user).post('/api/auth/passkeys/registration/options', undefined)
  expect(response.statusCode, response.body).toBe(200)
  return response.json().data
}

async function signInOptions(t: TestApp) {
  const response = await t.request('POST', '/api/auth/passkeys/authentication/options')
  expect(response.statusCode, response.body).toBe(200)
  return response.json().data
}

/** A signed-in user with one passkey on a fresh authenticator. */
async function userWithPasskey(t: TestApp) {
  const user = await quickSignIn(t, { name: 'Passkey Holder' })
  const authenticator = new SoftwareAuthenticator(APP_ORIGIN)
  const response = await as(t, user).post('/api/auth/passkeys/registration', { response: authenticator.create(await registrationOptions(t, user)) })
  expect(response.statusCode, response.body).toBe(201)
  return { user, authenticator, passkey: response.json().data.passkey as { id: string; name: string } }
}

const signIn = (t: TestApp, response: unknown) => t.request('POST', '/api/auth/passkeys/authentication', { body: { response } })

describe('passkeys', () => {
  const t = useTestApp()

  describe('adding a passkey and signing in with it', () => {
    it('offers creation options for the app’s host name, with a fresh challenge and no attestation', async () => {
      const user = await quickSignIn(t)
      const options = await registrationOptions(t, user)
      expect(options.rp).toEqual({ name: 'Accounts', id: 'app.test' })
      expect(options.user.name).toBe(user.email)
      expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(user.id)
      expect(options.attestation).toBe('none')
      expect(options.authenticatorSelection).toMatchObject({ residentKey: 'preferred', userVerification: 'required' })
      expect(options.excludeCredentials).toEqual([])
      // Ed25519, ES256, RS256: the same on every Node.js the product runs on (decision 0566).
      expect(options.pubKeyCredParams).toEqual([-8, -7, -257].map((alg) => ({ type: 'public-key', alg })))
      expect(Buffer.from(options.challenge, 'base64url').length).toBeGreaterThanOrEqual(16)
      expect((await registrationOptions(t, user)).challenge).not.toBe(options.challenge)
    })

    it('adds a passkey, records it, e-mails a notice, and signs in with it without a password', async () => {
      const { user, authenticator, passkey } = await userWithPasskey(t)
      expect(passkey).toEqual({ id: expect.any(String), name: 'Passkey 1', createdAt: t.clock.now().toISOString(), lastUsedAt: null })
      const added = await t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', user.id).where('activity', '=', 'Added a passkey').executeTakeFirstOrThrow()
      expect(added).toMatchObject({ kind: 'updated', details: 'Passkey 1', ip_address: '127.0.0.1' })

      await t.deliverMail()
      const notice = t.outbox().find((mail) => mail.to === user.email && mail.subject === 'A passkey was added to your account - Accounts')
      expect(notice).toBeDefined()

      const options = await signInOptions(t)
      expect(options).toMatchObject({ rpId: 'app.test', allowCredentials: [], userVerification: 'required' })
      const sessionsBefore = await sessionsOf(t, user.id)
      t.clock.advance(60)
      const response = await signIn(t, authenticator.get(options))
      expect(response.statusCode, response.body).toBe(200)
      const data = response.json().data
      expect(Object.keys(data).sort()).toEqual(['accessToken', 'csrfToken', 'refreshToken', 'user'])
      expect(data.user).toMatchObject({ id: user.id, email: user.email })
      expect(response.headers['x-csrf-token']).toBe(data.csrfToken)
      expect(await sessionsOf(t, user.id)).toBe(sessionsBefore + 1)

      const me = await t.request('GET', '/api/auth/me', { token: data.accessToken })
      expect(me.json().data.id).toBe(user.id)
      const list = await t.request('GET', '/api/auth/passkeys', { token: data.accessToken })
      expect(list.json().data.passkeys).toEqual([{ ...passkey, lastUsedAt: t.clock.now().toISOString() }])
      const entry = await t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', user.id).orderBy('id', 'desc').executeTakeFirstOrThrow()
      expect(entry).toMatchObject({ kind: 'logged in', activity: 'Logged in with a passkey' })
    })

    it('e-mails the notice in the language of the request that added the passkey', async () => {
      const user = await quickSignIn(t, { name: 'Marie Curie' })
      const authenticator = new SoftwareAuthenticator(APP_ORIGIN)
      const response = await t.request('POST', '/api/auth/passkeys/registration', {
        token: user.accessToken,
        csrf: user.csrfToken,
        headers: { 'accept-language': 'fr' },
        body: { response: authenticator.create(await registrationOptions(t, user)), name: 'Portable' },
      })
      expect(response.statusCode, response.body).toBe(201)
      await t.deliverMail()
      const notice = t.outbox().find((mail) => mail.to === user.email)
      expect(notice?.subject).toBe("Une clé d'accès a été ajoutée à votre compte - Accounts")
    })

    it('counts passkey sign-in outcomes in the metrics, apart from password sign-ins', async () => {
      const scrape = async () => (await t.request('GET', '/metrics')).body
      const count = (text: string, name: string, outcome: string) => Number(new RegExp(`^${name}\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1])
      const before = await scrape()
      const { authenticator } = await userWithPasskey(t)
      expect((await signIn(t, authenticator.get(await signInOptions(t)))).statusCode).toBe(200)
      expect((await signIn(t, authenticator.get(await signInOptions(t), { origin: 'http://evil.test' }))).statusCode).toBe(401)
      const after = await scrape()
      expect(count(after, 'accounts_passkey_sign_ins_total', 'success') - count(before, 'accounts_passkey_sign_ins_total', 'success')).toBe(1)
      expect(count(after, 'accounts_passkey_sign_ins_total', 'invalid_credentials') - count(before, 'accounts_passkey_sign_ins_total', 'invalid_credentials')).toBe(1)
      // The password sign-in of the fixture is the only one the other counter saw.
      expect(count(after, 'accounts_sign_ins_total', 'success') - count(before, 'accounts_sign_ins_total', 'success')).toBe(1)
    })

    it('excludes the caller’s passkeys from new creation options, and takes a chosen name', async () => {
      const { user, authenticator } = await userWithPasskey(t)
      const options = await registrationOptions(t, user)
      expect(options.excludeCredentials).toEqual([{ id: authenticator.credentials[0]!.id, type: 'public-key', transports: ['internal'] }])
      const second = await as(t, user).post('/api/auth/passkeys/registration', { response: authenticator.create(options), name: '  Work laptop ' })
      expect(second.statusCode, second.body).toBe(201)
      expect(second.json().data.passkey.name).toBe('Work laptop')
      expect(await countPasskeys(t.ctx.db, user.id)).toBe(2)
    })

    it.skipIf(!HAS_ML_DSA)('signs in with a passkey that already uses ML-DSA-44, whose signature is 2,420 bytes', async () => {
      const user = await quickSignIn(t, { name: 'Quantum Holder' })
      const { privateKey, publicKey } = crypto.generateKeyPairSync('ml-dsa-44' as 'ed25519')
      const id = crypto.randomBytes(16).toString('base64url')
      await t.ctx.db.transaction().execute((trx) =>
        insertPasskey(trx, {
          userId: user.id,
          credentialId: id,
          publicKey: coseKey(publicKey, 'ML-DSA-44'),
          counter: 0,
          transports: ['internal'],
          backedUp: false,
          name: 'PQ',
          now: t.clock.now(),
        }),
      )
      const authenticator = new SoftwareAuthenticator(APP_ORIGIN, 'ML-DSA-44')
      authenticator.hold({ id, algorithm: 'ML-DSA-44', privateKey, rpId: 'app.test', userHandle: Buffer.from(user.id).toString('base64url'), counter: 0 })
      const response = authenticator.get(await signInOptions(t))
      expect(Buffer.from(response.response.signature, 'base64url')).toHaveLength(2420)
      const answer = await signIn(t, response)
      expect(answer.statusCode, answer.body).toBe(200)
      expect(answer.json().data.user.id).toBe(user.id)
    })

    it('signs in again and again with the counter going up, and never with a counter that does not', async () => {
      const { authenticator } = await userWithPasskey(t)
      for (let i = 0; i < 3; i++) expect((await signIn(t, authenticator.get(await signInOptions(t)))).statusCode).toBe(200)
      const stale = authenticator.get(await signInOptions(t), { counter: 2 })
      expectFailure(await signIn(t, stale), 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
    })
  })

  describe('refused registrations: a 400, and no passkey', () => {
    let user: SignedIn
    let authenticator: SoftwareAuthenticator
    beforeEach(async () => {
      user = await quickSignIn(t)
      authenticator = new SoftwareAuthenticator(APP_ORIGIN)
    })

    const register = (response: unknown) => as(t, user).post('/api/auth/passkeys/registration', { response })
    const expectNothingAdded = async (response: Awaited<ReturnType<typeof register>>) => {
      expectFailure(response, 400, 'PASSKEY_REJECTED')
      expect(await passkeysOf(t, user.id)).toBe(0)
      expect(await countWhere(t, 'activities', { user_id: user.id, activity: 'Added a passkey' })).toBe(0)
    }

    it('for a challenge given to another user', async () => {
      const other = await quickSignIn(t)
      await expectNothingAdded(
        await register(authenticator.create({ ...(await registrationOptions(t, user)), challenge: (await registrationOptions(t, other)).challenge })),
      )
    })

    it('for a challenge never given, or given for a sign-in', async () => {
      const options = await registrationOptions(t, user)
      await expectNothingAdded(await register(authenticator.create(options, { challenge: 'bm90LWEtY2hhbGxlbmdlLWF0LWFsbC1yZWFsbHk' })))
      await expectNothingAdded(await register(authenticator.create(options, { challenge: (await signInOptions(t)).challenge })))
    })

    it('for a response used already', async () => {
      const response = authenticator.create(await registrationOptions(t, user))
      expect((await register(response)).statusCode).toBe(201)
      expectFailure(await register(response), 400, 'PASSKEY_REJECTED')
      expect(await passkeysOf(t, user.id)).toBe(1)
    })

    it('for a challenge older than 5 minutes', async () => {
      const options = await registrationOptions(t, user)
      t.clock.advance(5 * 60 + 1)
      await expectNothingAdded(await register(authenticator.create(options)))
    })

    it('for another origin, another RP ID, another type or no user verification', async () => {
      await expectNothingAdded(await register(authenticator.create(await registrationOptions(t, user), { origin: 'http://evil.test' })))
      await expectNothingAdded(await register(authenticator.create(await registrationOptions(t, user), { origin: 'https://app.test' })))
      await expectNothingAdded(await register(authenticator.create(await registrationOptions(t, user), { rpId: 'evil.test' })))
      await expectNothingAdded(await register(authenticator.create(await registrationOptions(t, user), { type: 'webauthn.get' })))
      await expectNothingAdded(await register(authenticator.create(await registrationOptions(t, user), { userVerified: false })))
    })

    it('for malformed responses and unknown fields, with field errors', async () => {
      const valid = authenticator.create(await registrationOptions(t, user))
      for (const body of [
        {},
        { response: 'nope' },
        { response: { ...valid, type: 'password' } },
        { response: { ...valid, response: { ...valid.response, clientDataJSON: '***' } } },
        { response: valid, name: '' },
        { response: valid, name: 'x'.repeat(65) },
        { response: valid, role: 'ADMIN' },
      ]) {
        expectFailure(await as(t, user).post('/api/auth/passkeys/registration', body), 400, 'VALIDATION_ERROR')
      }
      const garbled = { ...valid, response: { ...valid.response, clientDataJSON: Buffer.from('not json').toString('base64url') } }
      await expectNothingAdded(await register(garbled))
    })

    it.skipIf(!HAS_ML_DSA)('for a key of an algorithm it did not offer (ML-DSA-44)', async () => {
      const user = await quickSignIn(t)
      const authenticator = new SoftwareAuthenticator(APP_ORIGIN, 'ML-DSA-44')
      const response = await as(t, user).post('/api/auth/passkeys/registration', { response: authenticator.create(await registrationOptions(t, user)) })
      expectFailure(response, 400, 'PASSKEY_REJECTED', 'The passkey could not be verified. Please try again.')
      expect(await passkeysOf(t, user.id)).toBe(0)
    })

    it('refuses a response whose id is not the credential it creates', async () => {
      const options = await registrationOptions(t, user)
      const response = authenticator.create(options)
      const other = new SoftwareAuthenticator(APP_ORIGIN).create(await registrationOptions(t, user))
      await expectNothingAdded(await register({ ...response, id: other.id, rawId: other.id }))
    })

    it('refuses a credential already registered, on this account or another (409)', async () => {
      expect((await register(authenticator.create(await registrationOptions(t, user)))).statusCode).toBe(201)
      const credential = authenticator.credentials[0]!
      expectFailure(await register(authenticator.create(await registrationOptions(t, user), { reuse: credential })), 409, 'PASSKEY_EXISTS')
      const other = await quickSignIn(t)
      const again = authenticator.create(await registrationOptions(t, other), { reuse: credential })
      expectFailure(await as(t, other).post('/api/auth/passkeys/registration', { response: again }), 409, 'PASSKEY_EXISTS')
      expect(await passkeysOf(t, other.id)).toBe(0)
      expect(await passkeysOf(t, user.id)).toBe(1)
    })
  })

  describe('refused sign-ins: the same 401 "Invalid credentials", and no session', () => {
    const expectRefused = async (response: Awaited<ReturnType<typeof signIn>>, userId: string, sessionsBefore: number) => {
      expectFailure(response, 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
      expect(await sessionsOf(t, userId)).toBe(sessionsBefore)
      expect(response.headers['x-csrf-token']).toBeUndefined()
    }

    it('for another challenge, one never given, a registration’s, or an expired one', async () => {
      const { user, authenticator } = await userWithPasskey(t)
      const before = await sessionsOf(t, user.id)
      const options = await signInOptions(t)
      await expectRefused(await signIn(t, authenticator.get(options, { challenge: 'bm90LWEtY2hhbGxlbmdlLWF0LWFsbC1yZWFsbHk' })), user.id, before)
      await expectRefused(await signIn(t, authenticator.get(options, { challenge: (await registrationOptions(t, user)).challenge })), user.id, before)
      const late = await signInOptions(t)
      t.clock.advance(5 * 60 + 1)
      await expectRefused(await signIn(t, authenticator.get(late)), user.id, before)
    })

    it('for a response used already (replay)', async () => {
      const { user, authenticator } = await userWithPasskey(t)
      const response = authenticator.get(await signInOptions(t))
      expect((await signIn(t, response)).statusCode).toBe(200)
      const before = await sessionsOf(t, user.id)
      await expectRefused(await signIn(t, response), user.id, before)
    })

    it('for another origin or RP ID, no user verification, or a tampered signature', async () => {
      const { user, authenticator } = await userWithPasskey(t)
      const before = await sessionsOf(t, user.id)
      await expectRefused(await signIn(t, authenticator.get(await signInOptions(t), { origin: 'http://evil.test' })), user.id, before)
      await expectRefused(await signIn(t, authenticator.get(await signInOptions(t), { rpId: 'evil.test' })), user.id, before)
      await expectRefused(await signIn(t, authenticator.get(await signInOptions(t), { userVerified: false })), user.id, before)
      const signed = authenticator.get(await signInOptions(t))
      const signature = Buffer.from(signed.response.signature, 'base64url')
      signature[signature.length - 1]! ^= 0x01
      await expectRefused(await signIn(t, { ...signed, response: { ...signed.response, signature: signature.toString('base64url') } }), user.id, before)
      // The signature over other data: the authenticator data of another sign-in.
      const other = authenticator.get(await signInOptions(t))
      await expectRefused(await signIn(t, { ...other, response: { ...other.response, authenticatorData: signed.response.authenticatorData } }), user.id, before)
    })

    it('for a credential nobody registered, or another account’s user handle', async () => {
      const { user, authenticator } = await userWithPasskey(t)
      const stranger = new SoftwareAuthenticator(APP_ORIGIN)
      stranger.create(await registrationOptions(t, user))
      const before = await sessionsOf(t, user.id)
      await expectRefused(await signIn(t, stranger.get(await signInOptions(t))), user.id, before)
      const other = await quickSignIn(t)
      const response = authenticator.get(await signInOptions(t))
      await expectRefused(await signIn(t, { ...response, response: { ...response.response, userHandle: Buffer.from(other.id).toString('base64url') } }), user.id, before)
    })

    it('for a removed passkey and for a deleted account’s', async () => {
      const { user, authenticator, passkey } = await userWithPasskey(t)
      expect((await as(t, user).delete(`/api/auth/passkeys/${passkey.id}`)).statusCode).toBe(200)
      const before = await sessionsOf(t, user.id)
      await expectRefused(await signIn(t, authenticator.get(await signInOptions(t))), user.id, before)

      const gone = await userWithPasskey(t)
      await t.ctx.db.deleteFrom('users').where('id', '=', gone.user.id).execute()
      const response = await signIn(t, gone.authenticator.get(await signInOptions(t)))
      expectFailure(response, 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
      expect(await sessionsOf(t, gone.user.id)).toBe(0)
    })

    it('tells a suspended, inactive or unverified account so, only after a valid signature, and signs nobody in', async () => {
      for (const [change, status, message, code] of [
        [{ status: 'SUSPENDED' }, 403, 'Account is suspended', 'ACCOUNT_SUSPENDED'],
        [{ status: 'INACTIVE' }, 403, 'Account is inactive', 'ACCOUNT_INACTIVE'],
        [{ email_verified_at: null }, 403, 'Email not verified', 'EMAIL_NOT_VERIFIED'],
      ] as const) {
        const { user, authenticator } = await userWithPasskey(t)
        await t.ctx.db.updateTable('users').set(change).where('id', '=', user.id).execute()
        const before = await sessionsOf(t, user.id)
        expectFailure(await signIn(t, authenticator.get(await signInOptions(t))), status, code, message)
        expect(await sessionsOf(t, user.id)).toBe(before)
        // With a bad signature, the same 401 as anyone's.
        const signed = authenticator.get(await signInOptions(t), { origin: 'http://evil.test' })
        expectFailure(await signIn(t, signed), 401, 'INVALID_CREDENTIALS', 'Invalid credentials')
      }
    })

    it('for malformed bodies: a 400 with field errors', async () => {
      for (const body of [
        {},
        { response: null },
        { response: { id: 'x' } },
        { response: { id: '!!', rawId: '!!', type: 'public-key', response: {}, clientExtensionResults: {} } },
      ]) {
        expectFailure(await t.request('POST', '/api/auth/passkeys/authentication', { body }), 400, 'VALIDATION_ERROR')
      }
    })
  })

  describe('managing passkeys', () => {
    it('shows the passkey entries under the Updates and Login filters of the activity log', async () => {
      const staff = await quickSignIn(t, { role: 'ADMIN', name: 'Staff Passkey' })
      const authenticator = new SoftwareAuthenticator(APP_ORIGIN)
      await as(t, staff).post('/api/auth/passkeys/registration', { response: authenticator.create(await registrationOptions(t, staff)) })
      expect((await signIn(t, authenticator.get(await signInOptions(t)))).statusCode).toBe(200)
      const texts = async (filter: string) =>
        ((await as(t, staff).get(`/api/activity?activity=${encodeURIComponent(filter)}`)).json().data.activities as { activity: string }[]).map((a) => a.activity)
      expect(await texts('updated')).toContain('Added a passkey')
      expect(await texts('logged in')).toContain('Logged in with a passkey')
    })

    it('renames a passkey (1 to 64 characters) and records it', async () => {
      const { user, passkey } = await userWithPasskey(t)
      const renamed = await t.request('PATCH', `/api/auth/passkeys/${passkey.id}`, { token: user.accessToken, csrf: user.csrfToken, body: { name: 'Phone' } })
      expect(renamed.statusCode, renamed.body).toBe(200)
      expect(renamed.json().data.passkey).toMatchObject({ id: passkey.id, name: 'Phone' })
      expect(await countWhere(t, 'activities', { user_id: user.id, activity: 'Renamed a passkey' })).toBe(1)
      const rename = (name: unknown) => t.request('PATCH', `/api/auth/passkeys/${passkey.id}`, { token: user.accessToken, csrf: user.csrfToken, body: { name } })
      expectFailure(await rename(''), 400, 'VALIDATION_ERROR', 'Passkey name is required')
      expectFailure(await rename('   '), 400, 'VALIDATION_ERROR', 'Passkey name is required')
      expectFailure(await rename('x'.repeat(65)), 400, 'VALIDATION_ERROR', 'Passkey name must be at most 64 characters')
      expect((await rename('🔑'.repeat(64))).statusCode).toBe(200)
      expectFailure(await rename('a\nb'), 400, 'VALIDATION_ERROR')
    })

    it('answers 404 for another user’s passkey and for an unknown id, changing nothing', async () => {
      const owner = await userWithPasskey(t)
      const other = await quickSignIn(t)
      for (const id of [owner.passkey.id, '00000000-0000-4000-8000-000000000000', 'not-an-id']) {
        const rename = await t.request('PATCH', `/api/auth/passkeys/${id}`, { token: other.accessToken, csrf: other.csrfToken, body: { name: 'Mine now' } })
        expectFailure(rename, 404, 'NOT_FOUND', 'Passkey not found')
        expectFailure(await as(t, other).delete(`/api/auth/passkeys/${id}`), 404, 'NOT_FOUND', 'Passkey not found')
      }
      const list = await as(t, owner.user).get('/api/auth/passkeys')
      expect(list.json().data.passkeys).toEqual([owner.passkey])
    })

    it('removes a passkey and records it; the second remove is a 404', async () => {
      const { user, passkey } = await userWithPasskey(t)
      const removed = await as(t, user).delete(`/api/auth/passkeys/${passkey.id}`)
      expect(removed.json()).toEqual({ success: true, message: 'Passkey removed' })
      expect(await countWhere(t, 'activities', { user_id: user.id, activity: 'Removed a passkey' })).toBe(1)
      expectFailure(await as(t, user).delete(`/api/auth/passkeys/${passkey.id}`), 404, 'NOT_FOUND')
      expect((await as(t, user).get('/api/auth/passkeys')).json().data.passkeys).toEqual([])
    })

    it('counts a user’s passkeys and removes them all inside a transaction', async () => {
      const { user, authenticator } = await userWithPasskey(t)
      await as(t, user).post('/api/auth/passkeys/registration', { response: authenticator.create(await registrationOptions(t, user)) })
      expect(await countPasskeys(t.ctx.db, user.id)).toBe(2)
      expect(await t.ctx.db.transaction().execute((trx) => removeAllPasskeys(trx, user.id))).toBe(2)
      expect(await countPasskeys(t.ctx.db, user.id)).toBe(0)
    })

    it('needs a signed-in caller and the CSRF token for every change', async () => {
      const { user, passkey } = await userWithPasskey(t)
      expectFailure(await t.request('GET', '/api/auth/passkeys'), 401, 'AUTH_REQUIRED')
      expectFailure(await t.request('POST', '/api/auth/passkeys/registration/options', { token: user.accessToken }), 403, 'CSRF_INVALID')
      expectFailure(await t.request('DELETE', `/api/auth/passkeys/${passkey.id}`, { token: user.accessToken }), 403, 'CSRF_INVALID')
      expect(await passkeysOf(t, user.id)).toBe(1)
    })
  })
})

describe('passkey sign-in throttling', () => {
  const t = useTestApp({ RATE_LIMIT: 'on' })

  it('throttles failed passkey sign-ins per client address', async () => {
    // With the counters in Redis (TEST_REDIS_URL), a call made before the connection is up is
    // refused (503); this is the file's first call on this app, so it waits for readiness first.
    await expect.poll(async () => (await t.request('GET', '/api/health/ready')).statusCode).toBe(200)
    const options = (await t.request('POST', '/api/auth/passkeys/authentication/options', { remoteAddress: '203.0.113.9' })).json().data
    const stranger = new SoftwareAuthenticator(APP_ORIGIN)
    const user = await quickSignIn(t)
    stranger.create((await t.request('POST', '/api/auth/passkeys/registration/options', { token: user.accessToken, csrf: user.csrfToken })).json().data)
    const response = stranger.get(options)
    const statuses: number[] = []
    for (let i = 0; i < 101; i++) {
      statuses.push((await t.request('POST', '/api/auth/passkeys/authentication', { body: { response }, remoteAddress: '203.0.113.9' })).statusCode)
    }
    expect(statuses.slice(0, 100).every((status) => status === 401)).toBe(true)
    expect(statuses[100]).toBe(429)
    // Another address is not affected.
    const elsewhere = await t.request('POST', '/api/auth/passkeys/authentication', { body: { response }, remoteAddress: '198.51.100.7' })
    expect(elsewhere.statusCode).toBe(401)
  })
})
