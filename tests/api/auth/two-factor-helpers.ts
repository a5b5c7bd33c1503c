import { generateSync } from 'otplib'
import { expect } from 'vitest'
import type { SignedIn, TestApp } from '../../support/test-app'

/**
 * Two-factor stories: an authenticator app played by the test (codes computed from the secret
 * the setup showed, at the test's clock), and the calls the web app makes.
 */

/** The code an authenticator app shows `offsetSeconds` from the test clock's now. */
export function codeAt(t: TestApp, secret: string, offsetSeconds = 0): string {
  return generateSync({ secret, epoch: Math.floor(t.clock.now().getTime() / 1000) + offsetSeconds })
}

/** A six-digit code that is not the one the app shows now, nor a step either side. */
export function wrongCode(t: TestApp, secret: string): string {
  const near = new Set([-30, 0, 30].map((offset) => codeAt(t, secret, offset)))
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0')
    if (!near.has(candidate)) return candidate
  }
}

export function asUser(user: SignedIn) {
  return { token: user.accessToken, csrf: user.csrfToken }
}

export const mfaPost = (t: TestApp, user: SignedIn, path: string, body: unknown) => t.request('POST', `/api/auth/mfa${path}`, { ...asUser(user), body })

/** Turns the authenticator app on for a signed-in user: the secret and the recovery codes. */
export async function turnOnTwoFactor(t: TestApp, user: SignedIn): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await mfaPost(t, user, '/totp/setup', { password: user.password })
  expect(setup.statusCode, setup.body).toBe(200)
  const { secret } = setup.json().data as { secret: string }
  const enabled = await mfaPost(t, user, '/totp/enable', { code: codeAt(t, secret) })
  expect(enabled.statusCode, enabled.body).toBe(200)
  // The next code the test uses belongs to a later step than the one just used.
  t.clock.advance(30)
  return { secret, recoveryCodes: enabled.json().data.recoveryCodes as string[] }
}

/** The password step of an account with two-factor on: its mfaToken. */
export async function passwordStep(t: TestApp, user: { email: string; password: string }, remoteAddress?: string): Promise<string> {
  const response = await t.login(user.email, user.password, remoteAddress)
  expect(response.statusCode, response.body).toBe(200)
  const data = response.json().data
  expect(data.mfaRequired).toBe(true)
  return data.mfaToken as string
}

export const secondStep = (t: TestApp, body: Record<string, unknown>, remoteAddress?: string) =>
  t.request('POST', '/api/auth/login/mfa', { body, ...(remoteAddress ? { remoteAddress } : {}) })
