import crypto from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { type SignedIn, STRONG_PASSWORD, useTestApp } from '../../support/test-app'
import { expectFieldError, mailTo, newVisitor, register, withoutRequestId } from '../auth/helpers'
import { as } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'

/**
 * Look-alike addresses (decision 0303). Before the fix, each of these
 * registered an account of its own that showed as `alice…@example.com` in the admin list and in
 * activity entries: a Cyrillic "а", a zero-width space, a right-to-left override, full-width
 * letters, a combining mark. Now an address is put in its normal form (NFKC, lower case) before it
 * is compared or stored, and one that could show as another is a 400 "Invalid email address",
 * answered alike whether or not the address it imitates has an account.
 */

const t = useTestApp()
let admin: SignedIn
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN' })
})

/** A fresh plain-ASCII local part, so every story has an address of its own to imitate. */
const fresh = () => `alice${crypto.randomBytes(3).toString('hex')}`

/** Ways to write something that shows as `<local>@example.com` but is not that string. */
const IMPOSTORS: [string, (local: string) => string][] = [
  ['a Cyrillic а for the Latin a', (l) => `\u0430${l.slice(1)}@example.com`],
  ['a Greek ο inside', (l) => `${l.slice(0, 2)}\u03bf${l.slice(2)}@example.com`],
  ['a zero-width space', (l) => `${l}\u200b@example.com`],
  ['a zero-width joiner', (l) => `${l.slice(0, 3)}\u200d${l.slice(3)}@example.com`],
  ['a zero-width no-break space (BOM)', (l) => `\ufeff${l}@example.com`],
  ['a soft hyphen', (l) => `${l.slice(0, 2)}\u00ad${l.slice(2)}@example.com`],
  ['a word joiner', (l) => `${l}\u2060@example.com`],
  ['a right-to-left override', (l) => `\u202e${l}@example.com`],
  ['a left-to-right mark', (l) => `${l}\u200e@example.com`],
  ['a right-to-left isolate', (l) => `\u2067${l}\u2069@example.com`],
  ['a combining acute accent', (l) => `${l}\u0301@example.com`],
  ['a combining overlay', (l) => `${l.slice(0, 1)}\u0336${l.slice(1)}@example.com`],
  ['a combining grapheme joiner', (l) => `${l}\u034f@example.com`],
  ['a variation selector', (l) => `${l}\ufe0f@example.com`],
  ['a Hangul filler', (l) => `${l}\u3164@example.com`],
  ['a Cyrillic а in the domain', (l) => `${l}@ex\u0430mple.com`],
]

describe('an address that could show as another', () => {
  it.each(IMPOSTORS)('with %s is refused at registration, and no account shows as the real one', async (_name, impostorOf) => {
    const real = await quickUser(t, { email: `${fresh()}@example.com` })
    const impostor = impostorOf(real.email.split('@')[0]!)
    expectFieldError(await register(t, newVisitor({ email: impostor })), 'email', 'Invalid email address')
    const shown = await as(t, admin).get(`/api/admin/users?search=${encodeURIComponent(real.email.split('@')[0]!.slice(1))}`)
    expect(shown.json().data.users.map((user: { email: string }) => user.email)).toEqual([real.email])
  })

  it.each(IMPOSTORS)('with %s gets the same answer whether or not the address it imitates has an account', async (_name, impostorOf) => {
    const taken = await quickUser(t, { email: `${fresh()}@example.com` })
    const free = `${fresh()}@example.com`
    for (const call of [
      (email: string) => register(t, newVisitor({ email })),
      (email: string) => t.login(email, taken.password),
      (email: string) => t.request('POST', '/api/auth/forgot-password', { body: { email } }),
      (email: string) => t.request('POST', '/api/auth/resend-verification', { body: { email } }),
    ]) {
      const [againstTaken, againstFree] = [await call(impostorOf(taken.email.split('@')[0]!)), await call(impostorOf(free.split('@')[0]!))]
      expect(againstTaken.statusCode).toBe(400)
      expect(withoutRequestId(againstTaken)).toEqual(withoutRequestId(againstFree))
    }
    expect(await mailTo(t, taken.email)).toEqual([])
  })

  it.each(IMPOSTORS)('with %s cannot be given to an account by an administrator either', async (_name, impostorOf) => {
    const real = await quickUser(t, { email: `${fresh()}@example.com` })
    const target = await quickUser(t)
    const response = await as(t, admin).put(`/api/admin/users/${target.id}`, { email: impostorOf(real.email.split('@')[0]!) })
    expectFieldError(response, 'email', 'Invalid email address')
  })
})

describe('a compatibility form of an address (full-width, ligatures, mathematical letters)', () => {
  const forms: [string, (local: string) => string][] = [
    ['full-width letters', (l) => `${Array.from(l, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join('')}@example.com`],
    ['full-width letters in the domain too', (l) => `${l}@\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com`],
    ['upper case and full-width', (l) => `${l.toUpperCase().replace(/[A-Z]/, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0))}@EXAMPLE.COM`],
    ['a mathematical bold a', (l) => `\u{1d41a}${l.slice(1)}@example.com`],
  ]

  it.each(forms)('in %s is the same account: registration gets the new-address answer and the owner is warned', async (_name, formOf) => {
    const owner = await quickUser(t, { email: `${fresh()}@example.com` })
    const unused = `${fresh()}@example.com`
    const againstOwner = await register(t, newVisitor({ email: formOf(owner.email.split('@')[0]!) }))
    const againstUnused = await register(t, newVisitor({ email: formOf(unused.split('@')[0]!) }))
    expect(againstOwner.statusCode).toBe(201)
    expect(againstOwner.json().data).toEqual({ email: owner.email })
    expect(withoutRequestId(againstOwner)).toEqual({ ...(withoutRequestId(againstUnused) as object), data: { email: owner.email } })
    expect((await mailTo(t, owner.email)).map((mail) => mail.subject)).toEqual(['Someone tried to register with your email address - Accounts'])
    const accounts = await t.ctx.db.selectFrom('users').select('email').where('email', 'in', [owner.email, unused]).execute()
    expect(accounts.map((row) => row.email).sort()).toEqual([owner.email, unused].sort())
  })

  it('signs in to the one account, and is stored and shown only in its normal form', async () => {
    const local = fresh()
    const visitor = newVisitor({ email: `\uff21${local.slice(1).toUpperCase()}@Example.COM` })
    expect((await register(t, visitor)).statusCode).toBe(201)
    const normal = `a${local.slice(1)}@example.com`
    const row = await t.ctx.db.selectFrom('users').select(['email', 'id']).where('email', '=', normal).executeTakeFirstOrThrow()
    await t.ctx.db.updateTable('users').set({ email_verified_at: t.clock.now() }).where('id', '=', row.id).execute()
    const signedIn = await t.login(`${local}@example.com`, STRONG_PASSWORD)
    expect(signedIn.statusCode).toBe(200)
    expect(signedIn.json().data.user.email).toBe(normal)
    expect((await t.login(visitor.email, STRONG_PASSWORD)).json().data.user.id).toBe(row.id)
  })
})

describe('addresses in one writing system', () => {
  it.each([
    ['Cyrillic', 'петя'],
    ['Greek', 'ελενη'],
    ['Devanagari, with its vowel signs', 'राम'],
    ['Japanese: Latin, Han, Hiragana and Katakana together', 'yamada山田たろうタロウ'],
    ['Korean: Latin, Han and Hangul', 'kim金김철수'],
    ['Chinese: Han and Bopomofo', '王ㄅㄆ'],
    ['Latin with accents, precomposed', 'josé.müller'],
  ])('are accepted: %s', async (_name, local) => {
    const email = `${local}${crypto.randomInt(1_000_000)}@example.com`
    const response = await register(t, newVisitor({ email }))
    expect(response.statusCode, response.body).toBe(201)
    expect(response.json().data.email).toBe(email.normalize('NFKC'))
  })

  it.each([
    ['Latin and Cyrillic', 'pavel.павел'],
    ['Cyrillic and Greek', 'петяα'],
    ['Hangul and Hiragana', '김たろう'],
    ['Cyrillic letters that all pass for Latin', 'аре'],
    ['Greek letters that all pass for Latin', 'ορα'],
    ['Latin typed as a letter and a combining mark', 'jose\u0301'],
  ])('are refused when they are not: %s', async (_name, local) => {
    expectFieldError(await register(t, newVisitor({ email: `${local}@example.com` })), 'email', 'Invalid email address')
  })
})
