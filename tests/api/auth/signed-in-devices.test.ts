import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { hashToken } from '~server/auth/secure-token'
import { Housekeeping } from '~server/jobs/housekeeping'
import { useMailboxTestApp } from '../../support/mailbox'
import { type TestApp, useTestApp } from '../../support/test-app'
import { quickSignIn, quickUser } from '../helpers/users'
import { SoftwareAuthenticator } from '../../support/software-authenticator'
import { APP_ORIGIN, activitiesOf, expectFailure, me, refresh, withoutRequestId } from './helpers'

/**
 * Signed-in devices (contract section 6): the list of one's live sessions, signing one or all
 * other devices out, and the e-mail about a sign-in from a browser and system the account has
 * not used in 90 days.
 */

const CHROME_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const CHROME_MAC_UPDATED = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/132.0.0.0 Safari/537.36'
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1'

interface Device {
  sessionId: string
  accessToken: string
  refreshToken: string
  csrfToken: string
}

async function signInFrom(
  t: TestApp,
  user: { email: string; password: string },
  userAgent: string,
  remoteAddress = '203.0.113.7',
  headers: Record<string, string> = {},
): Promise<Device> {
  const response = await t.request('POST', '/api/auth/login', {
    body: { email: user.email, password: user.password },
    headers: { 'user-agent': userAgent, ...headers },
    remoteAddress,
  })
  expect(response.statusCode, response.body).toBe(200)
  const data = response.json().data
  const row = await t.ctx.db.selectFrom('refresh_tokens').select('session_id').where('token_hash', '=', hashToken(data.refreshToken)).executeTakeFirstOrThrow()
  return { sessionId: row.session_id, accessToken: data.accessToken, refreshToken: data.refreshToken, csrfToken: data.csrfToken }
}

const list = (t: TestApp, device: Device) => t.request('GET', '/api/auth/sessions', { token: device.accessToken })
const endOne = (t: TestApp, device: Device, id: string) => t.request('DELETE', `/api/auth/sessions/${id}`, { token: device.accessToken, csrf: device.csrfToken })
const endOthers = (t: TestApp, device: Device) => t.request('DELETE', '/api/auth/sessions', { token: device.accessToken, csrf: device.csrfToken })

describe('the signed-in devices list', () => {
  const t = useTestApp()

  it('lists the live sessions with browser, system, address and times, the asking one marked current', async () => {
    const user = await quickUser(t)
    const laptop = await signInFrom(t, user, CHROME_MAC, '198.51.100.4')
    t.clock.advance(60)
    const desktop = await signInFrom(t, user, FIREFOX_WINDOWS, '203.0.113.9')
    const signedInAt = t.clock.now().toISOString()
    t.clock.advance(60)

    const response = await list(t, laptop)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      success: true,
      data: {
        sessions: [
          // The laptop's list call is its newest use, so it comes first.
          {
            id: laptop.sessionId,
            current: true,
            browser: 'Chrome 131',
            os: 'macOS',
            ipAddress: '198.51.100.4',
            createdAt: expect.any(String),
            lastUsedAt: t.clock.now().toISOString(),
          },
          { id: desktop.sessionId, current: false, browser: 'Firefox 133', os: 'Windows', ipAddress: '203.0.113.9', createdAt: signedInAt, lastUsedAt: signedInAt },
        ],
      },
    })
    const fromDesktop = (await list(t, desktop)).json().data.sessions
    expect(fromDesktop.map((s: { id: string; current: boolean }) => [s.id, s.current])).toEqual([
      [desktop.sessionId, true],
      [laptop.sessionId, false],
    ])
  })

  it('names nothing it cannot read from the User-Agent', async () => {
    const user = await quickUser(t)
    const device = await signInFrom(t, user, 'curl/8.5.0')
    const [session] = (await list(t, device)).json().data.sessions
    expect(session).toMatchObject({ current: true, os: null })
    const bare = await signInFrom(t, user, '')
    const sessions = (await list(t, bare)).json().data.sessions as { id: string; browser: string | null; os: string | null }[]
    expect(sessions.find((s) => s.id === bare.sessionId)).toMatchObject({ browser: null, os: null })
  })

  it('keeps the last use to the minute, from signed-in calls and refreshes alike, most recent first', async () => {
    const user = await quickUser(t)
    const phone = await signInFrom(t, user, SAFARI_IPHONE)
    const laptop = await signInFrom(t, user, CHROME_MAC)
    const lastUse = async (id: string) => ((await list(t, laptop)).json().data.sessions as { id: string; lastUsedAt: string }[]).find((s) => s.id === id)!.lastUsedAt

    t.clock.advance(300)
    const used = t.clock.now().toISOString()
    expect((await me(t, phone.accessToken)).statusCode).toBe(200)
    t.clock.advance(30)
    expect((await me(t, phone.accessToken)).statusCode).toBe(200)
    expect(await lastUse(phone.sessionId)).toBe(used)

    t.clock.advance(400)
    const refreshedAt = t.clock.now().toISOString()
    const renewed = await refresh(t, phone.refreshToken)
    expect(renewed.statusCode).toBe(200)
    t.clock.advance(60)
    const sessions = (await list(t, laptop)).json().data.sessions as { id: string; lastUsedAt: string }[]
    // The laptop's own list call is newer still.
    expect(sessions.map((s) => s.id)).toEqual([laptop.sessionId, phone.sessionId])
    expect(sessions[1]!.lastUsedAt).toBe(refreshedAt)
  })

  it('signs one device out: its access token is refused on the very next call and its refresh token is dead', async () => {
    const user = await quickUser(t)
    const laptop = await signInFrom(t, user, CHROME_MAC)
    const phone = await signInFrom(t, user, SAFARI_IPHONE, '192.0.2.33')
    expect((await me(t, phone.accessToken)).statusCode).toBe(200)

    const ended = await endOne(t, laptop, phone.sessionId)
    expect(ended.statusCode, ended.body).toBe(200)
    expect(ended.json()).toEqual({ success: true, message: 'Device signed out' })

    expectFailure(await me(t, phone.accessToken), 401, 'SESSION_ENDED')
    expectFailure(await refresh(t, phone.refreshToken), 401, 'REFRESH_INVALID')
    expect((await list(t, laptop)).json().data.sessions.map((s: { id: string }) => s.id)).toEqual([laptop.sessionId])
    expect((await me(t, laptop.accessToken)).statusCode).toBe(200)

    const entries = await activitiesOf(t, user.id)
    expect(entries.at(-1)).toEqual({ kind: 'logged out', activity: 'Logged out a device', details: 'Safari 18 · iOS · 192.0.2.33', ip_address: '127.0.0.1' })
    // A second time, the session is no longer there.
    expectFailure(await endOne(t, laptop, phone.sessionId), 404, 'SESSION_NOT_FOUND', 'Session not found')
  })

  it('signs every other device out and keeps this one', async () => {
    const user = await quickUser(t)
    const devices = [await signInFrom(t, user, CHROME_MAC), await signInFrom(t, user, FIREFOX_WINDOWS), await signInFrom(t, user, SAFARI_IPHONE)]
    const [here, ...others] = devices as [Device, ...Device[]]

    const response = await endOthers(t, here)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ success: true, message: 'Signed out of all other devices' })
    for (const other of others) {
      expectFailure(await me(t, other.accessToken), 401, 'SESSION_ENDED')
      expectFailure(await refresh(t, other.refreshToken), 401, 'REFRESH_INVALID')
    }
    expect((await me(t, here.accessToken)).statusCode).toBe(200)
    expect((await list(t, here)).json().data.sessions.map((s: { id: string }) => s.id)).toEqual([here.sessionId])
    const entries = await activitiesOf(t, user.id)
    expect(entries.at(-1)).toMatchObject({ kind: 'logged out', activity: 'Logged out of all other devices' })

    // Nothing left to end: the same answer, and no entry for a change that did not happen.
    expect((await endOthers(t, here)).statusCode).toBe(200)
    expect(await activitiesOf(t, user.id)).toHaveLength(entries.length)
  })

  it("answers another user's session, an unknown id and a malformed one with the same 404, ending nothing", async () => {
    const owner = await quickUser(t)
    const stranger = await quickUser(t)
    const ownerDevice = await signInFrom(t, owner, CHROME_MAC)
    const strangerDevice = await signInFrom(t, stranger, FIREFOX_WINDOWS)

    const foreign = await endOne(t, strangerDevice, ownerDevice.sessionId)
    const unknown = await endOne(t, strangerDevice, crypto.randomUUID())
    expectFailure(foreign, 404, 'SESSION_NOT_FOUND', 'Session not found')
    expect(withoutRequestId(foreign)).toEqual(withoutRequestId(unknown))
    for (const bad of ['not-a-session', '1', `${ownerDevice.sessionId}x`, '%00', "1' OR '1'='1"]) {
      expect(withoutRequestId(await endOne(t, strangerDevice, encodeURIComponent(bad)))).toEqual(withoutRequestId(unknown))
    }
    expect((await me(t, ownerDevice.accessToken)).statusCode).toBe(200)
    expect((await list(t, strangerDevice)).json().data.sessions).toHaveLength(1)
    // The upper-case spelling of one's own id is the same session.
    const second = await signInFrom(t, stranger, SAFARI_IPHONE)
    expect((await endOne(t, strangerDevice, second.sessionId.toUpperCase())).statusCode).toBe(200)
  })

  it('may end its own session too: a sign-out like any other', async () => {
    const user = await quickUser(t)
    const here = await signInFrom(t, user, CHROME_MAC)
    expect((await endOne(t, here, here.sessionId)).statusCode).toBe(200)
    expectFailure(await me(t, here.accessToken), 401, 'SESSION_ENDED')
    expectFailure(await refresh(t, here.refreshToken), 401, 'REFRESH_INVALID')
  })

  it('needs a signed-in caller, and the session’s CSRF token to sign devices out', async () => {
    const user = await quickUser(t)
    const here = await signInFrom(t, user, CHROME_MAC)
    const there = await signInFrom(t, user, FIREFOX_WINDOWS)
    expectFailure(await t.request('GET', '/api/auth/sessions'), 401, 'AUTH_REQUIRED')
    expectFailure(await t.request('DELETE', `/api/auth/sessions/${there.sessionId}`, { token: here.accessToken }), 403, 'CSRF_INVALID')
    expectFailure(await t.request('DELETE', '/api/auth/sessions', { token: here.accessToken, csrf: there.csrfToken }), 403, 'CSRF_INVALID')
    expect((await me(t, there.accessToken)).statusCode).toBe(200)
  })
})

describe('the new-sign-in e-mail, through an SMTP server', () => {
  const { t, smtp } = useMailboxTestApp()

  const notices = async (email: string) => {
    await t.deliverMail()
    return smtp.all().filter((mail) => mail.to.includes(email) && /^(New sign-in to your account|Nouvelle connexion à votre compte) - Accounts$/.test(mail.subject))
  }

  it('is sent for a browser and system the account has not used, with browser, system, address, time and a link to the profile', async () => {
    const user = await quickUser(t, { name: 'Grace Hopper' })
    await signInFrom(t, user, CHROME_MAC)
    // The first sign-in of a new account, and the same browser after an update: no notice.
    await signInFrom(t, user, CHROME_MAC_UPDATED)
    expect(await notices(user.email)).toEqual([])

    t.clock.advance(3600)
    await signInFrom(t, user, FIREFOX_WINDOWS, '198.51.100.23')
    const [mail, ...more] = await notices(user.email)
    expect(more).toEqual([])
    expect(mail!.subject).toBe('New sign-in to your account - Accounts')
    expect(mail!.text).toContain('Hello Grace Hopper,')
    expect(mail!.text).toContain('Browser: Firefox 133')
    expect(mail!.text).toContain('System: Windows')
    expect(mail!.text).toContain('Address: 198.51.100.23')
    expect(mail!.text).toContain(`Time: ${t.clock.now().toISOString().slice(0, 10)} ${t.clock.now().toISOString().slice(11, 16)} UTC`)
    expect(mail!.html).toContain('Firefox 133')
    expect(mail!.links).toContain(`${APP_ORIGIN}/profile`)
    expect(mail!.html).toContain(`href="${APP_ORIGIN}/profile"`)

    // Now a known device: no second notice.
    await signInFrom(t, user, FIREFOX_WINDOWS)
    expect(await notices(user.email)).toHaveLength(1)
  })

  it("is written in the language of the sign-in's request, a dash standing for what the User-Agent did not say", async () => {
    const user = await quickUser(t, { name: 'Ada Lovelace' })
    await signInFrom(t, user, CHROME_MAC)
    await signInFrom(t, user, 'curl/8.5.0', '192.0.2.8', { 'accept-language': 'fr-FR,fr;q=0.9' })
    const [mail] = await notices(user.email)
    expect(mail!.subject).toBe('Nouvelle connexion à votre compte - Accounts')
    expect(mail!.text).toContain('Système : —')
    expect(mail!.text).toContain('Adresse : 192.0.2.8')
    expect(mail!.html).toContain('lang="fr"')
  })

  it('is sent for a passkey sign-in from a new browser and system too', async () => {
    const user = await quickSignIn(t)
    const authenticator = new SoftwareAuthenticator(APP_ORIGIN)
    const signedIn = { token: user.accessToken, csrf: user.csrfToken }
    const creation = (await t.request('POST', '/api/auth/passkeys/registration/options', signedIn)).json().data
    expect((await t.request('POST', '/api/auth/passkeys/registration', { ...signedIn, body: { response: authenticator.create(creation) } })).statusCode).toBe(201)
    const request = (await t.request('POST', '/api/auth/passkeys/authentication/options')).json().data
    const passkeySignIn = await t.request('POST', '/api/auth/passkeys/authentication', {
      body: { response: authenticator.get(request) },
      headers: { 'user-agent': FIREFOX_WINDOWS },
    })
    expect(passkeySignIn.statusCode, passkeySignIn.body).toBe(200)
    const [mail, ...more] = await notices(user.email)
    expect(more).toEqual([])
    expect(mail!.text).toContain('Browser: Firefox 133')
  })

  it('counts devices of ended sessions for 90 days, and not after', async () => {
    const user = await quickUser(t)
    const laptop = await signInFrom(t, user, CHROME_MAC)
    await signInFrom(t, user, SAFARI_IPHONE)
    expect(await notices(user.email)).toHaveLength(1)
    expect((await t.request('POST', '/api/auth/logout', { token: laptop.accessToken, csrf: laptop.csrfToken })).statusCode).toBe(200)

    t.clock.advance(60 * 24 * 3600)
    await new Housekeeping(t.ctx.db, t.clock.now, pino({ level: 'silent' }), t.ctx.dbKind).run()
    await signInFrom(t, user, CHROME_MAC)
    expect(await notices(user.email)).toHaveLength(1)

    t.clock.advance(91 * 24 * 3600)
    await signInFrom(t, user, SAFARI_IPHONE)
    expect(await notices(user.email)).toHaveLength(2)
  })

  it('is sent for the first sign-in of an account older than 90 days, but not for a refused sign-in', async () => {
    const user = await quickUser(t)
    t.clock.advance(100 * 24 * 3600)
    const wrong = await t.request('POST', '/api/auth/login', { body: { email: user.email, password: 'Wrong-Password-1!' }, headers: { 'user-agent': CHROME_MAC } })
    expect(wrong.statusCode).toBe(401)
    expect(await notices(user.email)).toEqual([])
    await signInFrom(t, user, CHROME_MAC)
    expect(await notices(user.email)).toHaveLength(1)
  })
})
