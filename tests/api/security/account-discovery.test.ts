import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PasswordHasher } from '~server/auth/password'
import { RULES } from '~server/rate-limit/rules'
import { useTestApp, STRONG_PASSWORD, uniqueEmail } from '../../support/test-app'
import { mailTo, newVisitor, register, withoutRequestId } from '../auth/helpers'
import { as } from '../helpers/requests'
import { quickSignIn } from '../helpers/users'
import { countHashing } from './hashing-work'

/**
 * Sign-in and account discovery (checklist: V6). What an attacker can learn about an address from
 * the answers and from the work behind them. Timings are not asserted here: equal work is shown
 * as an equal count of Argon2 operations (the distributions are in docs/benchmarks/enumeration.md).
 *
 * Already proved elsewhere, and not repeated: identical bodies for the five sign-in failures and
 * the state shown only after the right password (tests/api/auth/login.test.ts); the same answer to
 * register, resend and forgot for known and unknown addresses, mail only where it belongs
 * (auth/register, verify-email, password-reset tests); throttling that forged X-Forwarded-For
 * and changing addresses cannot escape, exact under 20 parallel guesses, and a throttled owner
 * who can still reset (auth/throttling.test.ts); the blocklist and long passphrases
 * (auth/validation.test.ts).
 */

const t = useTestApp({ RATE_LIMIT: 'on' })
let work: ReturnType<typeof countHashing>
beforeAll(async () => {
  // Throttling on, as in production: each story uses addresses and accounts of its own.
  work = countHashing(t)
})
afterAll(async () => {
  work.restore()
})

let block = 0
/** Client addresses no other story uses. */
const addresses = () => {
  const net = ++block
  return (host: number) => `10.77.${net}.${host + 1}`
}

const entries = async () =>
  Number(
    (
      await t.ctx.db
        .selectFrom('activities')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

/** What a client can compare between two answers: status, body without its request id, header names. */
const visible = (response: LightMyRequestResponse) => ({
  status: response.statusCode,
  body: withoutRequestId(response),
  headers: Object.keys(response.headers).sort(),
})

describe('a failed sign-in', () => {
  it('answers an unknown address, a wrong password and a wrong password on an unusable account alike, each after exactly one Argon2 verification and one write', async () => {
    const from = addresses()
    const active = await t.createUser()
    const suspended = await t.createUser({ status: 'SUSPENDED' })
    const inactive = await t.createUser({ status: 'INACTIVE' })
    const unverified = await t.createUser()
    await t.ctx.db.updateTable('users').set({ email_verified_at: null }).where('id', '=', unverified.id).execute()

    const cases = [
      ['an unknown address', uniqueEmail('nobody')],
      ['an active account', active.email],
      ['a suspended account', suspended.email],
      ['an inactive account', inactive.email],
      ['an unverified account', unverified.email],
    ] as const
    work.take()
    const seen = []
    for (const [label, email] of cases) {
      const entriesBefore = await entries()
      const response = await t.login(email, 'Wrong-Password-1!', from(seen.length))
      seen.push({ label, ...visible(response), work: work.take(), written: (await entries()) - entriesBefore })
    }
    for (const answer of seen) {
      expect(answer.status, answer.label).toBe(401)
      expect(answer.body, answer.label).toEqual({ success: false, message: 'Invalid credentials', code: 'INVALID_CREDENTIALS' })
      expect(answer.headers, answer.label).toEqual(seen[0]!.headers)
      // No more and no less than a wrong password: one verification, no hashing.
      expect(answer.work, answer.label).toEqual({ hash: 0, verify: 1 })
      // And the same write: one "Failed login" entry (an unknown address's belongs to nobody).
      expect(answer.written, answer.label).toBe(1)
    }
    const unknownEntry = await t.ctx.db.selectFrom('activities').selectAll().where('activity', '=', 'Failed login').where('user_id', 'is', null).executeTakeFirstOrThrow()
    expect(unknownEntry).toMatchObject({ kind: 'other', details: 'Unknown address', ip_address: from(0), actor_id: null })
    expect(JSON.stringify(unknownEntry)).not.toContain('nobody')
  })

  it('costs an unknown address one verification from the very first attempt on (no hash made on demand)', async () => {
    // A hasher as a freshly started server has it: nothing hashed yet.
    const hasher = new PasswordHasher()
    const calls: string[] = []
    const verify = hasher.verify.bind(hasher)
    const hash = hasher.hash.bind(hasher)
    hasher.verify = (passwordHash, password) => (calls.push('verify'), verify(passwordHash, password))
    hasher.hash = (password) => (calls.push('hash'), hash(password))
    await expect(hasher.verifyNothing('Wrong-Password-1!')).resolves.toBe(false)
    expect(calls).toEqual(['verify'])
  })
})

describe('registering an address', () => {
  it('answers a taken and a free address alike, after one Argon2 hash each', async () => {
    const from = addresses()
    const owner = await t.createUser()
    work.take()
    const free = await register(t, newVisitor(), { remoteAddress: from(0) })
    const freeWork = work.take()
    const taken = await register(t, newVisitor({ email: owner.email }), { remoteAddress: from(1) })
    const takenWork = work.take()

    expect(free.statusCode).toBe(201)
    expect(visible(taken)).toEqual({ ...visible(free), body: { ...(visible(free).body as object), data: { email: owner.email } } })
    expect(freeWork).toEqual({ hash: 1, verify: 0 })
    expect(takenWork).toEqual(freeWork)
  })
})

describe('asking for a reset link or a new verification link', () => {
  /** Rows of every table such a request could touch. */
  const rows = async () => {
    const count = async (table: 'activities' | 'one_time_tokens' | 'mail_jobs' | 'users') =>
      Number(
        (
          await t.ctx.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    return { activities: await count('activities'), tokens: await count('one_time_tokens'), queued: await count('mail_jobs'), users: await count('users') }
  }

  it.each(['/api/auth/forgot-password', '/api/auth/resend-verification'] as const)(
    '%s: answers every address alike after the same single write, and the mail worker sorts them out afterwards',
    async (path) => {
      const from = addresses()
      const verified = await t.createUser()
      const unverified = await t.createUser()
      await t.ctx.db.updateTable('users').set({ email_verified_at: null }).where('id', '=', unverified.id).execute()
      const cases = [
        ['an unknown address', uniqueEmail('nobody')],
        ['a verified account', verified.email],
        ['an unverified account', unverified.email],
      ] as const

      const seen = []
      await t.deliverMail()
      // The worker is not woken while answering is measured: what the request itself wrote stays in view.
      const wake = t.ctx.onJobQueued
      t.ctx.onJobQueued = () => {}
      for (const [label, email] of cases) {
        const before = await rows()
        const response = await t.request('POST', path, { body: { email }, remoteAddress: from(seen.length) })
        const after = await rows()
        seen.push({
          label,
          ...visible(response),
          written: {
            activities: after.activities - before.activities,
            tokens: after.tokens - before.tokens,
            queued: after.queued - before.queued,
            users: after.users - before.users,
          },
        })
      }
      t.ctx.onJobQueued = wake
      for (const answer of seen) {
        expect(answer.status, answer.label).toBe(200)
        expect(answer.body, answer.label).toEqual(seen[0]!.body)
        expect(answer.headers, answer.label).toEqual(seen[0]!.headers)
        // While answering: one queued request, nothing else, whoever the address belongs to.
        expect(answer.written, answer.label).toEqual({ activities: 0, tokens: 0, queued: 1, users: 0 })
      }

      // Afterwards, the mail goes only where it should.
      const wanted = path === '/api/auth/forgot-password' ? [verified.email, unverified.email] : [unverified.email]
      for (const [label, email] of cases) {
        const mail = await mailTo(t, email)
        expect(mail.length, label).toBe(wanted.includes(email) ? 1 : 0)
      }
      expect(await rows()).toMatchObject({ queued: 0 })
      const nobody = await t.ctx.db.selectFrom('activities').select('id').where('ip_address', '=', from(0)).execute()
      expect(nobody).toEqual([])
    },
  )
})

describe('the sign-in throttle', () => {
  it('is counted before the password is checked: 20 parallel guesses on one account cost exactly 10 verifications', async () => {
    const from = addresses()
    const user = await t.createUser()
    work.take()
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => t.login(user.email, `Wrong-Password-${i}!`, from(i))))
    const statuses = answers.map((a) => a.statusCode)
    expect(statuses.filter((s) => s === 401)).toHaveLength(RULES.signInByEmail.max)
    expect(statuses.filter((s) => s === 429)).toHaveLength(20 - RULES.signInByEmail.max)
    expect(work.take()).toEqual({ hash: 0, verify: RULES.signInByEmail.max })
  })

  it('checks no password at all once an account is throttled, not even the right one', async () => {
    const from = addresses()
    const user = await t.createUser()
    for (let i = 0; i < RULES.signInByEmail.max; i++) await t.login(user.email, 'Wrong-Password-1!', from(i))
    work.take()
    for (const password of ['Wrong-Password-2!', user.password]) {
      expect((await t.login(user.email, password, from(50))).statusCode).toBe(429)
    }
    expect(work.take()).toEqual({ hash: 0, verify: 0 })
  })

  it('throttles an unknown address exactly like a known one', async () => {
    const from = addresses()
    const known = await t.createUser()
    const unknown = uniqueEmail('nobody')
    const run = async (email: string) => {
      const statuses: number[] = []
      for (let i = 0; i < RULES.signInByEmail.max + 2; i++) statuses.push((await t.login(email, 'Wrong-Password-1!', from(i))).statusCode)
      return statuses
    }
    expect(await run(unknown)).toEqual(await run(known.email))
  })
})

describe('a password far too long', () => {
  const huge = `Aa1!${'x'.repeat(100_000)}`

  it('is refused at sign-in, registration, reset and password change before any Argon2 work', async () => {
    const from = addresses()
    const user = await quickSignIn(t, { name: 'Long Password' })
    work.take()
    const answers = [
      await t.login(user.email, huge, from(0)),
      await t.request('POST', '/api/auth/register', {
        body: { name: 'Long Password', email: uniqueEmail('long'), password: huge, confirmPassword: huge },
        remoteAddress: from(1),
      }),
      await t.request('POST', `/api/auth/reset-password/${'A'.repeat(43)}`, { body: { password: huge, confirmPassword: huge }, remoteAddress: from(2) }),
      await as(t, user).put('/api/users/change-password', { currentPassword: huge, newPassword: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD }),
      await as(t, user).put('/api/users/change-password', { currentPassword: STRONG_PASSWORD, newPassword: huge, confirmPassword: huge }),
      // 129 characters: one over the password cap.
      await t.request('POST', '/api/auth/register', {
        body: { name: 'Long Password', email: uniqueEmail('long'), password: `Aa1!${'x'.repeat(125)}`, confirmPassword: `Aa1!${'x'.repeat(125)}` },
        remoteAddress: from(3),
      }),
    ]
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(400)
      expect(answer.json().errors.map((e: { message: string }) => e.message)).toContain('Password must be at most 128 characters')
    }
    expect(work.take()).toEqual({ hash: 0, verify: 0 })
  })
})
