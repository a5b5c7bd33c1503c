import crypto from 'node:crypto'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { deriveKeys, loadOrCreateSecret } from '~server/config/secrets'
import { RULES } from '~server/rate-limit/rules'
import { useTestApp, type SignedIn, STRONG_PASSWORD } from '../../support/test-app'
import { forgotPassword, me, mailTo, newVisitor, refresh, register, resetLink, resetPassword, signInAs, tokenOf, verificationLink } from '../auth/helpers'
import { as } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'

/**
 * Tokens and sessions (checklist: V7, V9, V10, RFC 9700).
 *
 * Already proved elsewhere, and not repeated: `alg: none`, an edited payload, a token signed with
 * another key, an extended `exp`, an expired token, a refresh token used as an access token and
 * the reverse, all 401 (tests/api/auth/sessions.test.ts); a rotated refresh token presented after
 * the 10 s grace killing the whole session, and two tabs refreshing with the same token (same
 * file); single-use and expiring reset and verification links, and links built from APP_URL
 * whatever the Host (auth/password-reset and auth/verify-email tests); every sequence of
 * sign-ins, refreshes, waits and logouts against a model (properties/session-state-machine).
 */

const t = useTestApp({ RATE_LIMIT: 'on' })
let admin: SignedIn
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Token Admin' })
})

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const hmac = (key: Uint8Array | Buffer, data: string) => crypto.createHmac('sha256', key).update(data).digest('base64url')

describe('an access token made with the real key but claims that do not match', () => {
  const keys = () => deriveKeys(loadOrCreateSecret(t.config.authSecret, t.config.dataDir))
  const jwt = (key: Uint8Array | Buffer, header: object, payload: object) => {
    const unsigned = `${b64url(header)}.${b64url(payload)}`
    return `${unsigned}.${hmac(key, unsigned)}`
  }

  it("is refused: someone else's user id on my session, a session that does not exist, a malformed session id, another token type, another key's purpose", async () => {
    const victim = await quickUser(t)
    const attacker = await signInAs(t, await quickUser(t))
    const sessionOf = async (token: string) =>
      JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string; sid: string; exp: number; iat: number }
    const claims = await sessionOf(attacker.accessToken)
    const header = { alg: 'HS256', typ: 'at+jwt' }
    const { accessToken, csrf } = keys()

    // Sanity: the key is the real one, so a faithful copy passes.
    expect((await me(t, jwt(accessToken, header, claims))).statusCode).toBe(200)

    const forged = [
      jwt(accessToken, header, { ...claims, sub: victim.id }),
      jwt(accessToken, header, { ...claims, sid: crypto.randomUUID() }),
      jwt(accessToken, header, { ...claims, sid: "' OR 1=1 --" }),
      jwt(accessToken, header, { ...claims, sub: { $ne: null } }),
      jwt(accessToken, { alg: 'HS256', typ: 'JWT' }, claims),
      jwt(accessToken, { alg: 'HS256' }, claims),
      jwt(accessToken, header, { ...claims, exp: undefined }),
      jwt(accessToken, header, { ...claims, iat: claims.iat + 3600 }),
      jwt(csrf, header, claims),
      jwt(accessToken, { alg: 'HS512', typ: 'at+jwt' }, claims),
    ]
    for (const token of forged) {
      const response = await me(t, token)
      expect(response.statusCode, response.body).toBe(401)
    }
  })
})

describe('events that end sessions', () => {
  /** A user signed in twice: the session doing things, and another device. */
  async function twoSessions() {
    const user = await quickUser(t, { name: 'Two Devices' })
    const here = await signInAs(t, user)
    const there = await signInAs(t, user)
    return { user, here, there }
  }

  const alive = async (session: { accessToken: string; refreshToken: string }) => {
    const [call, renewed] = [await me(t, session.accessToken), await refresh(t, session.refreshToken)]
    return { access: call.statusCode, refresh: renewed.statusCode }
  }
  const LIVE = { access: 200, refresh: 200 }
  const DEAD = { access: 401, refresh: 401 }

  const adminEdit = (id: string, change: object) => as(t, admin).put(`/api/admin/users/${id}`, change)

  it.each([
    [
      'logout',
      'this session only',
      async (s: Awaited<ReturnType<typeof twoSessions>>) => t.request('POST', '/api/auth/logout', { token: s.here.accessToken, csrf: s.here.csrfToken }),
      DEAD,
      LIVE,
    ],
    [
      'logout-all',
      'every session',
      async (s: Awaited<ReturnType<typeof twoSessions>>) => t.request('POST', '/api/auth/logout-all', { token: s.here.accessToken, csrf: s.here.csrfToken }),
      DEAD,
      DEAD,
    ],
    [
      'a password change',
      'every other session',
      async (s: Awaited<ReturnType<typeof twoSessions>>) =>
        t.request('PUT', '/api/users/change-password', {
          token: s.here.accessToken,
          csrf: s.here.csrfToken,
          body: { currentPassword: STRONG_PASSWORD, newPassword: 'Tangerine-Kettle-42%', confirmPassword: 'Tangerine-Kettle-42%' },
        }),
      LIVE,
      DEAD,
    ],
    [
      'a password reset',
      'every session',
      async (s: Awaited<ReturnType<typeof twoSessions>>) => {
        await forgotPassword(t, s.user.email, '10.66.0.1')
        return resetPassword(t, tokenOf(await resetLink(t, s.user.email)), 'Reset-Through-Mail-7!', '10.66.0.1')
      },
      DEAD,
      DEAD,
    ],
    ['a suspension', 'every session', async (s: Awaited<ReturnType<typeof twoSessions>>) => adminEdit(s.user.id, { status: 'SUSPENDED' }), DEAD, DEAD],
    ['a deactivation', 'every session', async (s: Awaited<ReturnType<typeof twoSessions>>) => adminEdit(s.user.id, { status: 'INACTIVE' }), DEAD, DEAD],
    ['a role change', 'every session', async (s: Awaited<ReturnType<typeof twoSessions>>) => adminEdit(s.user.id, { role: 'MODERATOR' }), DEAD, DEAD],
    [
      'an e-mail change',
      'every session',
      async (s: Awaited<ReturnType<typeof twoSessions>>) => adminEdit(s.user.id, { email: `moved-${crypto.randomBytes(4).toString('hex')}@example.com` }),
      DEAD,
      DEAD,
    ],
  ] as const)('%s ends %s on the next request', async (_event, _scope, act, here, there) => {
    const sessions = await twoSessions()
    const done = await act(sessions)
    expect(done.statusCode, done.body).toBe(200)
    expect(await alive(sessions.here), 'the session that acted').toEqual(here)
    expect(await alive(sessions.there), 'the other device').toEqual(there)
  })

  it('a deletion ends every session on its own, even ones the deactivation would have ended', async () => {
    const user = await quickUser(t, { name: 'Deleted Soon' })
    const session = await signInAs(t, user)
    // Made INACTIVE behind the API's back, so its sessions are still there when the delete runs.
    await t.ctx.db.updateTable('users').set({ status: 'INACTIVE' }).where('id', '=', user.id).execute()
    expect((await me(t, session.accessToken)).statusCode).toBe(403)

    expect((await as(t, admin).delete(`/api/admin/users/${user.id}`)).statusCode).toBe(200)
    const after = await me(t, session.accessToken)
    expect(after.statusCode).toBe(401)
    expect(after.json().code).toBe('SESSION_ENDED')
    expect((await refresh(t, session.refreshToken)).statusCode).toBe(401)
    const left = await t.ctx.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute()
    expect(left).toEqual([])
  })
})

describe('many tabs refreshing at the same moment', () => {
  it('all get the same working successor and nobody is signed out', async () => {
    const session = await signInAs(t, await quickUser(t))
    const tabs = await Promise.all(Array.from({ length: 6 }, () => refresh(t, session.refreshToken)))
    // A tab that wakes up a few seconds later, still within the grace, with the same old token.
    t.clock.advance(8)
    tabs.push(await refresh(t, session.refreshToken))
    for (const tab of tabs) expect(tab.statusCode, tab.body).toBe(200)
    const successors = tabs.map((tab) => tab.json().data)
    expect(new Set(successors.map((s) => s.refreshToken)).size).toBe(1)
    for (const successor of successors) expect((await me(t, successor.accessToken)).statusCode).toBe(200)
    expect((await refresh(t, successors[0].refreshToken)).statusCode).toBe(200)
  })
})

describe('guessing reset and verification links', () => {
  const guess = () => crypto.randomBytes(32).toString('base64url')

  it('1,000 random reset tokens from one client succeed 0 times and are throttled after 20; the real link still works', async () => {
    const user = await quickUser(t)
    await forgotPassword(t, user.email, '10.66.1.1')
    const real = tokenOf(await resetLink(t, user.email))

    const statuses = new Map<number, number>()
    for (let i = 0; i < 1_000; i++) {
      const status = (await resetPassword(t, guess(), 'Guessed-It-Right-9!', '10.66.1.2')).statusCode
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
    expect(Object.fromEntries(statuses)).toEqual({ 400: RULES.resetPasswordByIp.max, 429: 1_000 - RULES.resetPasswordByIp.max })
    expect((await t.login(user.email, 'Guessed-It-Right-9!', '10.66.1.3')).statusCode).toBe(401)
    expect((await resetPassword(t, real, 'Really-Mine-Now-7!', '10.66.1.4')).statusCode).toBe(200)
  })

  it('1,000 random verification tokens from one client verify nobody and are throttled after 30', async () => {
    const visitor = newVisitor()
    await register(t, visitor, { remoteAddress: '10.66.2.1' })
    const statuses = new Map<number, number>()
    for (let i = 0; i < 1_000; i++) {
      const status = (await t.request('GET', `/api/auth/verify-email/${guess()}`, { remoteAddress: '10.66.2.2' })).statusCode
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
    expect(Object.fromEntries(statuses)).toEqual({ 400: RULES.verifyEmailByIp.max, 429: 1_000 - RULES.verifyEmailByIp.max })
    const row = await t.ctx.db.selectFrom('users').select('email_verified_at').where('email', '=', visitor.email).executeTakeFirstOrThrow()
    expect(row.email_verified_at).toBeNull()
  })
})

describe('what the database keeps of a token', () => {
  /** Every row of every table, as text. */
  async function everything(): Promise<string> {
    const tables = await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`.execute(t.ctx.db)
    const dumps = await Promise.all(
      tables.rows.map(async ({ name }) =>
        (await sql<{ row: string }>`SELECT row_to_json(x)::text AS row FROM ${sql.table(name)} x`.execute(t.ctx.db)).rows.map((r) => r.row).join('\n'),
      ),
    )
    return dumps.join('\n')
  }
  const sha256Hex = (token: string) => crypto.createHash('sha256').update(token).digest('hex')

  it('is a SHA-256 hash, never the token: refresh, reset and verification tokens, with their mail still queued', async () => {
    const user = await quickUser(t)
    const session = await signInAs(t, user)
    const renewed = (await refresh(t, session.refreshToken)).json().data
    await forgotPassword(t, user.email, '10.66.3.1')
    const visitor = newVisitor()
    await register(t, visitor, { remoteAddress: '10.66.3.2' })
    // Read while the mail with the links is still in the queue.
    const stored = await everything()

    const reset = tokenOf(await resetLink(t, user.email))
    const verify = tokenOf(await verificationLink(t, visitor.email))
    const secrets = {
      'refresh token': session.refreshToken,
      'rotated refresh token': renewed.refreshToken,
      'reset token': reset,
      'verification token': verify,
      'access token': renewed.accessToken,
      'CSRF token': renewed.csrfToken,
      password: STRONG_PASSWORD,
    }
    for (const [what, secret] of Object.entries(secrets)) {
      expect(stored.includes(secret), what).toBe(false)
      expect(stored.includes(secret.slice(0, 20)), `a piece of the ${what}`).toBe(false)
    }
    for (const token of [session.refreshToken, renewed.refreshToken, reset, verify]) expect(stored).toContain(sha256Hex(token))
    expect((await mailTo(t, visitor.email)).length).toBe(1)
  })

  it('is a random 256-bit token, a new one for every request', async () => {
    const user = await quickUser(t)
    const tokens = new Set<string>()
    for (let i = 0; i < 3; i++) {
      await forgotPassword(t, user.email, `10.66.4.${i + 1}`)
      tokens.add(tokenOf(await resetLink(t, user.email)))
    }
    expect(tokens.size).toBe(3)
    for (const token of tokens) expect(Buffer.from(token, 'base64url')).toHaveLength(32)
  })
})
