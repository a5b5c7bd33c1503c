import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import { STRONG_PASSWORD, type TestApp, uniqueEmail } from '../../support/test-app'

/**
 * What the authentication stories share: reading the API's failure envelope, reading the
 * mail a user received and the link in it, and registering a visitor the way the web app does.
 */

export const APP_ORIGIN = 'http://app.test'

export interface FieldMessage {
  field: string
  message: string
}

/** A failure answer exactly as the API writes it: `{ success, message, code, errors?, requestId }`. */
export function expectFailure(response: LightMyRequestResponse, status: number, code: string, message?: string) {
  expect(response.statusCode, response.body).toBe(status)
  expect(response.headers['content-type']).toMatch(/^application\/json/)
  const body = response.json()
  expect(body).toEqual({
    success: false,
    message: message ?? expect.any(String),
    code,
    ...(body.errors !== undefined ? { errors: body.errors } : {}),
    requestId: expect.any(String),
  })
  expect(body.requestId.length).toBeGreaterThan(0)
  if (code !== 'VALIDATION_ERROR') expect(body.errors).toBeUndefined()
  return body as { success: false; message: string; code: string; errors?: FieldMessage[]; requestId: string }
}

/** A 400 naming the field and the message for it (among possibly other field messages). */
export function expectFieldError(response: LightMyRequestResponse, field: string, message: string) {
  const body = expectFailure(response, 400, 'VALIDATION_ERROR')
  expect(body.errors).toEqual(expect.arrayContaining([{ field, message }]))
  for (const error of body.errors ?? []) expect(Object.keys(error).sort()).toEqual(['field', 'message'])
  return body
}

/** The body of an answer without its request id, to compare two answers as a client sees them. */
export function withoutRequestId(response: LightMyRequestResponse): unknown {
  const { requestId: _ignored, ...rest } = response.json()
  return rest
}

/** Every e-mail sent so far to one address, oldest first. */
export async function mailTo(t: TestApp, email: string) {
  await t.deliverMail()
  return t
    .outbox()
    .filter((mail) => mail.to === email)
    .reverse()
}

/** The one link of a mail pointing at a page of the web app, checked to be on APP_URL. */
export function linkTo(mail: { links: string[] }, page: '/verify-email' | '/reset-password'): URL {
  const found = mail.links.map((link) => new URL(link)).filter((url) => url.pathname === page)
  expect(found, `a ${page} link in ${JSON.stringify(mail.links)}`).toHaveLength(1)
  const url = found[0]!
  expect(url.origin).toBe(APP_ORIGIN)
  return url
}

export function tokenOf(url: URL): string {
  const token = url.searchParams.get('token')
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
  return token!
}

export interface Visitor {
  name: string
  email: string
  phone?: string
  password: string
}

export function newVisitor(overrides: Partial<Visitor> = {}): Visitor {
  return { name: 'Ada Lovelace', email: uniqueEmail('visitor'), password: STRONG_PASSWORD, ...overrides }
}

export function register(t: TestApp, visitor: Visitor, options: { remoteAddress?: string; headers?: Record<string, string> } = {}) {
  return t.request('POST', '/api/auth/register', {
    body: { ...visitor, confirmPassword: visitor.password },
    ...options,
  })
}

/** The verification link of the newest verification mail to this address. */
export async function verificationLink(t: TestApp, email: string): Promise<URL> {
  const mails = (await mailTo(t, email)).filter((mail) => mail.subject === 'Verify your email address - Accounts')
  expect(mails.length, `verification mail to ${email}`).toBeGreaterThan(0)
  return linkTo(mails.at(-1)!, '/verify-email')
}

/** The reset link of the newest reset mail to this address. */
export async function resetLink(t: TestApp, email: string): Promise<URL> {
  const mails = (await mailTo(t, email)).filter((mail) => mail.subject === 'Reset your password - Accounts')
  expect(mails.length, `reset mail to ${email}`).toBeGreaterThan(0)
  return linkTo(mails.at(-1)!, '/reset-password')
}

/** Registers through the API and follows the e-mailed link, as a new user does. */
export async function registerAndVerify(t: TestApp, visitor: Visitor = newVisitor()) {
  const registered = await register(t, visitor)
  expect(registered.statusCode, registered.body).toBe(201)
  const token = tokenOf(await verificationLink(t, visitor.email.toLowerCase()))
  const verified = await t.request('GET', `/api/auth/verify-email/${token}`)
  expect(verified.statusCode, verified.body).toBe(200)
  return visitor
}

export function userIdOf(t: TestApp, email: string): Promise<string> {
  return t.ctx.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email.toLowerCase())
    .executeTakeFirstOrThrow()
    .then((row) => row.id)
}

/** The activity entries about a user, oldest first. */
export function activitiesOf(t: TestApp, userId: string) {
  return t.ctx.db.selectFrom('activities').select(['kind', 'activity', 'details', 'ip_address']).where('user_id', '=', userId).orderBy('id').execute()
}

export function forgotPassword(t: TestApp, email: string, remoteAddress?: string) {
  return t.request('POST', '/api/auth/forgot-password', { body: { email }, ...(remoteAddress ? { remoteAddress } : {}) })
}

export function resetPassword(t: TestApp, token: string, password: string, remoteAddress?: string) {
  return t.request('POST', `/api/auth/reset-password/${token}`, {
    body: { password, confirmPassword: password },
    ...(remoteAddress ? { remoteAddress } : {}),
  })
}

export function refresh(t: TestApp, refreshToken: string) {
  return t.request('POST', '/api/auth/refresh-token', { body: { refreshToken } })
}

export function me(t: TestApp, accessToken: string) {
  return t.request('GET', '/api/auth/me', { token: accessToken })
}

/** Signs in through the API with an account made directly, returning the session's tokens. */
export async function signInAs(t: TestApp, user: { email: string; password: string }) {
  const response = await t.login(user.email, user.password)
  expect(response.statusCode, response.body).toBe(200)
  return response.json().data as { accessToken: string; refreshToken: string; csrfToken: string; user: { id: string } }
}
