import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { DEVICE_COOKIE } from '~server/auth/device-tokens'
import { RULES } from '~server/rate-limit/rules'
import { createTestApp, uniqueEmail, useTestApp } from '../../support/test-app'
import { expectFailure, forgotPassword, resetLink, tokenOf } from '../auth/helpers'
import { quickUser } from '../helpers/users'

/**
 * Lock-out as denial of service (decision 0301). Before the fix, ten wrong passwords from anywhere
 * locked an account's password sign-in for 15 minutes, the owner's own included, and a hundred
 * failures from one address locked out everyone behind it (an office, a mobile carrier's NAT). The
 * account and address limits still hold for browsers the account was not used in; a browser that
 * signed in to the account before (or reset its password) carries a device cookie, and its
 * attempts count against that cookie alone.
 */

const t = useTestApp({ RATE_LIMIT: 'on' })

const WRONG = 'Wrong-Password-1!'
let block = 100
/** Client addresses no other story uses. */
const addresses = () => {
  const net = ++block
  return (host: number) => `10.${net}.${Math.floor(host / 250)}.${(host % 250) + 1}`
}

/** The device cookie an answer set, as a browser would send it back. */
function deviceCookieOf(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((c) => c.name === DEVICE_COOKIE)
  expect(cookie, `a device cookie on ${response.statusCode} ${response.body.slice(0, 80)}`).toBeDefined()
  return `${DEVICE_COOKIE}=${cookie!.value}`
}

const signIn = (email: string, password: string, remoteAddress: string, cookie?: string) =>
  t.request('POST', '/api/auth/login', { body: { email, password }, remoteAddress, ...(cookie ? { headers: { cookie } } : {}) })

/** Someone else guessing from changing addresses until the account's limit is spent. */
async function exhaustAccount(email: string) {
  const from = addresses()
  for (let i = 0; i < RULES.signInByEmail.max + 5; i++) await signIn(email, WRONG, from(i))
  expect((await signIn(email, WRONG, from(99))).statusCode).toBe(429)
}

describe('an attacker who keeps an account throttled', () => {
  it('cannot lock the owner out of a browser they signed in with before', async () => {
    const owner = await quickUser(t)
    const home = addresses()(0)
    const browser = deviceCookieOf(await signIn(owner.email, owner.password, home))

    await exhaustAccount(owner.email)
    // A browser the account never used is still turned away, even with the right password...
    expectFailure(await signIn(owner.email, owner.password, home), 429, 'RATE_LIMITED')
    // ...the owner's is not.
    const again = await signIn(owner.email, owner.password, home, browser)
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().data.user.email).toBe(owner.email)
  })

  it('gets no fresh attempts when the owner signs in from a known browser', async () => {
    const owner = await quickUser(t)
    const from = addresses()
    const browser = deviceCookieOf(await signIn(owner.email, owner.password, from(0)))
    await exhaustAccount(owner.email)
    expect((await signIn(owner.email, owner.password, from(0), browser)).statusCode).toBe(200)
    expectFailure(await signIn(owner.email, WRONG, from(1)), 429, 'RATE_LIMITED')
  })

  it('cannot lock the owner out of a new browser either: a reset there remembers it', async () => {
    const owner = await quickUser(t)
    const from = addresses()
    await exhaustAccount(owner.email)
    await forgotPassword(t, owner.email, from(0))
    const reset = await t.request('POST', `/api/auth/reset-password/${tokenOf(await resetLink(t, owner.email))}`, {
      body: { password: 'Taken-Back-Account-9!', confirmPassword: 'Taken-Back-Account-9!' },
      remoteAddress: from(0),
    })
    expect(reset.statusCode).toBe(200)
    const browser = deviceCookieOf(reset)
    // The attacker spends the account's limit again at once.
    await exhaustAccount(owner.email)
    expect((await signIn(owner.email, 'Taken-Back-Account-9!', from(0), browser)).statusCode).toBe(200)
  })

  it('cannot lock out a known browser behind an address that a hundred failures blocked', async () => {
    const owner = await quickUser(t)
    const office = addresses()(0)
    const browser = deviceCookieOf(await signIn(owner.email, owner.password, office))
    // Someone in the same office (the same public address) fails a hundred times.
    for (let i = 0; i < RULES.signInByIp.max; i++) await signIn(uniqueEmail('guess'), WRONG, office)
    expectFailure(await signIn(uniqueEmail('guess'), WRONG, office), 429, 'RATE_LIMITED')
    expectFailure(await signIn(owner.email, owner.password, office), 429, 'RATE_LIMITED')
    expect((await signIn(owner.email, owner.password, office, browser)).statusCode).toBe(200)
  })
})

describe('a device cookie', () => {
  it('gives a browser its own limit: 20 parallel wrong passwords from it, exactly 10 checked, then even the right one waits', async () => {
    const owner = await quickUser(t)
    const from = addresses()
    const browser = deviceCookieOf(await signIn(owner.email, owner.password, from(0)))
    const attempts = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(owner.email, WRONG, from(i + 1), browser)))
    expect(attempts.filter((a) => a.statusCode === 401)).toHaveLength(RULES.signInByDevice.max)
    expect(attempts.filter((a) => a.statusCode === 429)).toHaveLength(20 - RULES.signInByDevice.max)
    expectFailure(await signIn(owner.email, owner.password, from(30), browser), 429, 'RATE_LIMITED')
    // Those failures were not the account's: another browser with the right password gets in.
    expect((await signIn(owner.email, owner.password, from(31))).statusCode).toBe(200)
  })

  it("is worth nothing for another account, edited, or made up: those attempts count as a new browser's", async () => {
    const owner = await quickUser(t)
    const other = await quickUser(t)
    const from = addresses()
    const browser = deviceCookieOf(await signIn(owner.email, owner.password, from(0)))
    const value = browser.slice(DEVICE_COOKIE.length + 1)
    const edited = `${DEVICE_COOKIE}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`
    const madeUp = `${DEVICE_COOKIE}=${'A'.repeat(22)}.${Math.floor(Date.now() / 1000).toString(36)}.${'B'.repeat(43)}`
    await exhaustAccount(other.email)
    for (const cookie of [browser, edited, madeUp, `${DEVICE_COOKIE}=${'x'.repeat(5000)}`]) {
      expectFailure(await signIn(other.email, other.password, from(1), cookie), 429, 'RATE_LIMITED')
    }
    await exhaustAccount(owner.email)
    for (const cookie of [edited, madeUp]) expectFailure(await signIn(owner.email, owner.password, from(2), cookie), 429, 'RATE_LIMITED')
    expect((await signIn(owner.email, owner.password, from(2), browser)).statusCode).toBe(200)
  })

  it('expires: after 180 days without a sign-in the browser is a new one again', async () => {
    const owner = await quickUser(t)
    const from = addresses()
    const browser = deviceCookieOf(await signIn(owner.email, owner.password, from(0)))
    t.clock.advance(181 * 24 * 60 * 60)
    await exhaustAccount(owner.email)
    expectFailure(await signIn(owner.email, owner.password, from(1), browser), 429, 'RATE_LIMITED')
  })

  it('is HttpOnly, SameSite=Strict, sent only to sign-in, and keeps the accounts a browser uses', async () => {
    const first = await quickUser(t)
    const second = await quickUser(t)
    const from = addresses()
    const answer = await signIn(first.email, first.password, from(0))
    const cookie = answer.cookies.find((c) => c.name === DEVICE_COOKIE)!
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/auth/login', maxAge: 180 * 24 * 60 * 60 })
    expect(cookie.secure).toBeFalsy() // APP_URL is http here; an https APP_URL makes it Secure.
    // Signing in to a second account in the same browser keeps the first one's token.
    const both = deviceCookieOf(await signIn(second.email, second.password, from(0), `${DEVICE_COOKIE}=${cookie.value}`))
    await exhaustAccount(first.email)
    await exhaustAccount(second.email)
    expect((await signIn(first.email, first.password, from(1), both)).statusCode).toBe(200)
    expect((await signIn(second.email, second.password, from(1), both)).statusCode).toBe(200)
  })

  it('is Secure when APP_URL is https', async () => {
    const secure = await createTestApp({ APP_URL: 'https://accounts.example' })
    try {
      const user = await secure.createUser()
      const answer = await secure.login(user.email, user.password)
      expect(answer.cookies.find((c) => c.name === DEVICE_COOKIE)?.secure).toBe(true)
    } finally {
      await secure.close()
    }
  })
})
