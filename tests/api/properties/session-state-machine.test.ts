import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { useTestApp, type TestApp } from '../../support/test-app'

/**
 * The session and refresh-token rules as a state machine, checked by random command sequences
 * against the real app: a model predicts every answer (sign in, refresh with the newest or an
 * older token, time passing, a signed-in call, logout), and the server must agree each step.
 *
 * Rules modelled (decisions 0002 and 0302): a refresh token works once; a used token
 * presented again within 10 s of its use gets the token the session holds now (the same one, never
 * a new chain); after that the whole session dies; an access token lives ACCESS_TOKEN_TTL seconds;
 * logout ends the session at once.
 */
const GRACE = 10
const ACCESS_TTL = 60

interface TokenModel {
  value: string
  usedAt: number | null
}
interface SessionModel {
  live: boolean
  tokens: TokenModel[]
  access: { value: string; expiresAt: number }
}
interface Model {
  now: number
  sessions: SessionModel[]
}
interface Real {
  t: TestApp
  email: string
  password: string
}

const refreshWith = (t: TestApp, token: string) => t.request('POST', '/api/auth/refresh-token', { body: { refreshToken: token } })

class SignIn implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => m.sessions.length < 3
  async run(m: Model, r: Real) {
    const response = await r.t.login(r.email, r.password)
    expect(response.statusCode).toBe(200)
    const data = response.json().data
    m.sessions.push({ live: true, tokens: [{ value: data.refreshToken, usedAt: null }], access: { value: data.accessToken, expiresAt: m.now + ACCESS_TTL } })
  }
  toString = () => 'signIn'
}

class Refresh implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly session: number,
    readonly tokenFromEnd: number,
  ) {}
  check = (m: Readonly<Model>) => m.sessions.length > 0
  async run(m: Model, r: Real) {
    const session = m.sessions[this.session % m.sessions.length]!
    const token = session.tokens[Math.max(0, session.tokens.length - 1 - this.tokenFromEnd)]!
    const expectOk = session.live && (token.usedAt === null || m.now - token.usedAt <= GRACE)
    const response = await refreshWith(r.t, token.value)
    expect(response.statusCode).toBe(expectOk ? 200 : 401)
    if (expectOk) {
      const data = response.json().data
      if (token.usedAt === null) {
        token.usedAt = m.now
        session.tokens.push({ value: data.refreshToken, usedAt: null })
      } else {
        // A replay within the grace: the session's current token, as already handed out.
        expect(data.refreshToken).toBe(session.tokens.at(-1)!.value)
      }
      session.access = { value: data.accessToken, expiresAt: m.now + ACCESS_TTL }
    } else if (session.live && token.usedAt !== null) {
      // A used token after the grace period: the whole session is revoked.
      session.live = false
    }
  }
  toString = () => `refresh(session ${this.session}, token -${this.tokenFromEnd})`
}

class Wait implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seconds: number) {}
  check = () => true
  async run(m: Model, r: Real) {
    m.now += this.seconds
    r.t.clock.advance(this.seconds)
  }
  toString = () => `wait(${this.seconds}s)`
}

class CallMe implements fc.AsyncCommand<Model, Real> {
  constructor(readonly session: number) {}
  check = (m: Readonly<Model>) => m.sessions.length > 0
  async run(m: Model, r: Real) {
    const session = m.sessions[this.session % m.sessions.length]!
    const response = await r.t.request('GET', '/api/auth/me', { token: session.access.value })
    expect(response.statusCode).toBe(session.live && m.now < session.access.expiresAt ? 200 : 401)
  }
  toString = () => `me(session ${this.session})`
}

class Logout implements fc.AsyncCommand<Model, Real> {
  constructor(readonly session: number) {}
  check = (m: Readonly<Model>) => m.sessions.length > 0
  async run(m: Model, r: Real) {
    const session = m.sessions[this.session % m.sessions.length]!
    // The CSRF token of a session does not change; take it from a fresh csrf-token call.
    const csrf = await r.t.request('GET', '/api/auth/csrf-token', { token: session.access.value })
    const usable = session.live && m.now < session.access.expiresAt
    expect(csrf.statusCode).toBe(usable ? 200 : 401)
    if (!usable) return
    const response = await r.t.request('POST', '/api/auth/logout', { token: session.access.value, csrf: csrf.json().data.csrfToken })
    expect(response.statusCode).toBe(200)
    session.live = false
  }
  toString = () => `logout(session ${this.session})`
}

const commands = [
  fc.constant(new SignIn()),
  fc.tuple(fc.nat(2), fc.nat(3)).map(([s, k]) => new Refresh(s, k)),
  fc.tuple(fc.nat(2), fc.nat(3)).map(([s, k]) => new Refresh(s, k)),
  fc.integer({ min: 1, max: 25 }).map((s) => new Wait(s)),
  fc.nat(2).map((s) => new CallMe(s)),
  fc.nat(2).map((s) => new Logout(s)),
]

describe('sessions and refresh tokens, as a state machine', () => {
  const t = useTestApp({ ACCESS_TOKEN_TTL: String(ACCESS_TTL) })

  it('answer every sequence of sign-ins, refreshes, waits, calls and logouts as the rules predict', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 18 }), async (sequence) => {
        const user = await t.createUser()
        const real: Real = { t, email: user.email, password: user.password }
        await fc.asyncModelRun(() => ({ model: { now: 0, sessions: [] }, real }), sequence)
      }),
      { numRuns: 40 },
    )
  })
})
