import { type ChildProcess, fork } from 'node:child_process'
import crypto from 'node:crypto'
import { CSRF_HEADER } from '~shared/constants'
import { type SignedIn, signIn } from '../support/accounts'
import { type BenchServer, startServer } from '../support/server'
import { freePort } from '../../tests/support/server-process'

/**
 * The systems compared, each a real HTTP server in its own process, driven the same way by the
 * same client: what a sign-in, a session check, a sign-out and an admin user search are for each
 * as HTTP requests, and how each says that a session was refused.
 */
export interface Request {
  path: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
}

/** What a signed-in client holds: the headers that carry its session, and what signing out needs. */
export interface Session {
  headers: Record<string, string>
  signOut: Request
}

export interface System {
  name: string
  url: string
  /** The server's process, and the database its connections use (for CPU per request). */
  pid: number
  database: string
  signInRequest(email: string, password: string): Request
  signIn(email: string, password: string): Promise<Session>
  /** The session check: our GET /api/auth/me, Better Auth's getSession. */
  sessionCheck(session: Session): Request
  /** Whether the session check's answer let the session through (a refusal is any other answer). */
  accepted(status: number, body: string): boolean
  /** The admin's user search, page 1 of 10, newest first. */
  search(admin: Session, term: string): Request
  /** The e-mail addresses of a search answer's users, in order, and its total. */
  searchAnswer(body: string): { emails: string[]; total: number }
  stop(): Promise<void>
}

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json' })

export async function startOurs(databaseUrl: string): Promise<System> {
  const server: BenchServer = await startServer({ DATABASE_URL: databaseUrl, RATE_LIMIT: 'off' })
  return {
    name: 'Accounts',
    url: server.url,
    pid: server.child.pid!,
    database: new URL(databaseUrl).pathname.slice(1),
    signInRequest: (email, password) => ({ path: '/api/auth/login', method: 'POST', headers: { ...JSON_HEADERS }, body: JSON.stringify({ email, password }) }),
    async signIn(email, password) {
      const tokens: SignedIn = await signIn(server.url, email, password)
      const headers = { authorization: `Bearer ${tokens.accessToken}` }
      return { headers, signOut: { path: '/api/auth/logout', method: 'POST', headers: { ...headers, [CSRF_HEADER]: tokens.csrfToken } } }
    },
    sessionCheck: (session) => ({ path: '/api/auth/me', headers: session.headers }),
    accepted: (status) => status === 200,
    search: (admin, term) => ({ path: `/api/admin/users?${new URLSearchParams({ search: term, page: '1', limit: '10' })}`, headers: admin.headers }),
    searchAnswer(body) {
      const { data } = JSON.parse(body) as { data: { users: { email: string }[]; pagination: { total: number } } }
      return { emails: data.users.map((user) => user.email), total: data.pagination.total }
    },
    async stop() {
      await server.stop()
    },
  }
}

export interface BetterAuthOptions {
  name: string
  cookieCache?: boolean
  joins?: boolean
}

export async function startBetterAuth(databaseUrl: string, options: BetterAuthOptions): Promise<System> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child: ChildProcess = fork(new URL('./better-auth-server.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      BA_SECRET: crypto.randomBytes(32).toString('hex'),
      BA_COOKIE_CACHE: options.cookieCache ? 'on' : 'off',
      BA_JOINS: options.joins ? 'on' : 'off',
    },
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await Promise.race([new Promise((resolve) => child.once('message', resolve)), exited.then(() => Promise.reject(new Error(`${options.name} exited before listening`)))])
  // A browser sends its page's origin with every POST; Better Auth checks it against its own.
  const origin = { origin: url }
  return {
    name: options.name,
    url,
    pid: child.pid!,
    database: new URL(databaseUrl).pathname.slice(1),
    signInRequest: (email, password) => ({
      path: '/api/auth/sign-in/email',
      method: 'POST',
      headers: { ...JSON_HEADERS, ...origin },
      body: JSON.stringify({ email, password }),
    }),
    async signIn(email, password) {
      const response = await fetch(`${url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, ...origin },
        body: JSON.stringify({ email, password }),
      })
      if (!response.ok) throw new Error(`${options.name} sign-in failed: ${response.status} ${await response.text()}`)
      // The cookies as a browser would send them back: name=value of each.
      const cookie = response.headers
        .getSetCookie()
        .map((line) => line.split(';')[0])
        .join('; ')
      const headers = { cookie }
      return { headers, signOut: { path: '/api/auth/sign-out', method: 'POST', headers: { ...headers, ...origin, ...JSON_HEADERS }, body: '{}' } }
    },
    sessionCheck: (session) => ({ path: '/api/auth/get-session', headers: session.headers }),
    // getSession answers 200 either way: the session and its user, or `null` for none.
    accepted: (status, body) => status === 200 && body.trim() !== 'null' && 'session' in (JSON.parse(body) as object),
    // Its listUsers searches one field; the e-mail is its default, and contains every user's
    // name in this data set (first.last or first_last, lower-case; see databases.ts).
    search: (admin, term) => ({
      path: `/api/auth/admin/list-users?${new URLSearchParams({ searchValue: term, searchField: 'email', searchOperator: 'contains', limit: '10', sortBy: 'createdAt', sortDirection: 'desc' })}`,
      headers: admin.headers,
    }),
    searchAnswer(body) {
      const answer = JSON.parse(body) as { users: { email: string }[]; total: number }
      return { emails: answer.users.map((user) => user.email), total: answer.total }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill()
      await exited
    },
  }
}

/** One request with node's fetch: status, body and time taken. */
export async function send(base: string, request: Request): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now()
  const response = await fetch(base + request.path, { method: request.method ?? 'GET', headers: request.headers, body: request.body })
  const body = await response.text()
  return { status: response.status, body, ms: performance.now() - started }
}
