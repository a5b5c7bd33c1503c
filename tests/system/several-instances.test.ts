import crypto from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import * as client from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { linkTo, startMailbox, type Mailbox } from '../support/mailbox'
import { createPostgresDatabase, killStrayServers, queryStore, removeDataDir, type ServerProcess, startServer, emptyDataDir } from './server-process'
import { nginxBinary, type ReverseProxy, startReverseProxy } from './reverse-proxy'
import { POSTGRES_URL, REDIS_URL, postgresMissing, redisMissing } from './services'

/**
 * Two server processes on one PostgreSQL and one Redis behind a reverse proxy act as one
 *: a sign-out, a role change and a throttle on one instance hold on the other
 * at the very next request, and stopping one instance with SIGTERM under a stream of requests
 * loses none of them: the proxy sends what the stopping instance cannot take to the other one.
 * A machine's credentials (contract section 11) hold across them too: a client-credentials token
 * or an API key from one instance works on the other, a key deleted on one is refused on the
 * other at the next request, and either instance names the application in the entries it writes.
 */
const missing = (await postgresMissing()) ?? (await redisMissing())
const ADMIN = { email: 'fleet.admin@example.com', password: 'Two-Of-Everything-42!' }
const PASSWORD = 'Same-Everywhere-2026!'

/** A client address of this run only (TEST-NET-2), given through the trusted proxy chain: its throttling counters are its own. */
const CLIENT = `198.51.100.${crypto.randomInt(1, 255)}`

interface Session {
  accessToken: string
  refreshToken: string
  csrfToken: string
}

async function request(base: string, method: string, url: string, options: { body?: unknown; session?: Session; bearer?: string; signal?: AbortSignal } = {}) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      'x-forwarded-for': CLIENT,
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.session ? { authorization: `Bearer ${options.session.accessToken}`, 'x-csrf-token': options.session.csrfToken } : {}),
      // A machine's bearer (a client-credentials token or an API key) goes without a CSRF header.
      ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

describe.skipIf(missing)(`several instances behind a reverse proxy (${nginxBinary() ? 'nginx' : 'a Node proxy'})${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const dirs = [emptyDataDir(), emptyDataDir()]
  let database: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined
  let mailbox: Mailbox | undefined
  let proxy: ReverseProxy | undefined
  let a: ServerProcess
  let b: ServerProcess
  const user = { email: '', id: '' }

  beforeAll(async () => {
    try {
      database = await createPostgresDatabase(POSTGRES_URL)
      mailbox = await startMailbox()
      const env = {
        DATABASE_URL: database.url,
        REDIS_URL,
        RATE_LIMIT: 'on',
        // Both sign and check the same tokens; each keeps nothing else of its own.
        AUTH_SECRET: crypto.randomBytes(32).toString('hex'),
        APP_URL: 'http://accounts.test',
        TRUST_PROXY: '127.0.0.1',
        SMTP_URL: mailbox.smtpUrl,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        LOG_LEVEL: 'warn',
      }
      a = await startServer({ ...env, DATA_DIR: dirs[0]! })
      b = await startServer({ ...env, DATA_DIR: dirs[1]! })
      proxy = await startReverseProxy([a.port, b.port])

      // A person registers and verifies their address through the proxy, like anyone would.
      user.email = `fleet-${crypto.randomBytes(4).toString('hex')}@example.com`
      const registered = await request(proxy.url, 'POST', '/api/auth/register', {
        body: { name: 'Fleet User', email: user.email, password: PASSWORD, confirmPassword: PASSWORD },
      })
      expect(registered.status).toBe(201)
      const link = linkTo(await mailbox.next(user.email, /verify/i, 30_000), '/verify-email')
      expect((await request(proxy.url, 'GET', `/api/auth/verify-email/${link.searchParams.get('token')}`)).status).toBe(200)
      const [row] = await queryStore<{ id: string }>({ dataDir: dirs[0]!, databaseUrl: database.url }, `SELECT id FROM users WHERE email = '${user.email}'`)
      user.id = row!.id
    } catch (error) {
      await cleanUp()
      throw error
    }
  })

  async function cleanUp() {
    await proxy?.close().catch(() => {})
    await killStrayServers()
    await mailbox?.close().catch(() => {})
    await database?.drop().catch(() => {})
    for (const dir of dirs) removeDataDir(dir)
  }
  afterAll(cleanUp)

  const signIn = async (on: ServerProcess | ReverseProxy, credentials: { email: string; password: string }): Promise<Session> => {
    const answer = await request(on.url, 'POST', '/api/auth/login', { body: credentials })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    return answer.body.data
  }

  it('serves through the proxy from both instances', async () => {
    const session = await signIn(proxy!, ADMIN)
    for (let i = 0; i < 4; i++) expect((await request(proxy!.url, 'GET', '/api/auth/me', { session })).status).toBe(200)
    for (const instance of [a, b]) {
      expect((await request(instance.url, 'GET', '/api/health/ready')).body.data).toEqual({ status: 'ready', database: 'reachable', redis: 'reachable' })
      expect((await request(instance.url, 'GET', '/api/auth/me', { session })).status).toBe(200)
    }
  })

  it('a sign-out on one instance holds on the other at the next request', async () => {
    const session = await signIn(a, { email: user.email, password: PASSWORD })
    expect((await request(b.url, 'GET', '/api/auth/me', { session })).status).toBe(200)
    expect((await request(a.url, 'POST', '/api/auth/logout', { session })).status).toBe(200)
    expect((await request(b.url, 'GET', '/api/auth/me', { session })).status).toBe(401)
    expect((await request(b.url, 'POST', '/api/auth/refresh-token', { body: { refreshToken: session.refreshToken } })).status).toBe(401)
  })

  it('a role change on one instance holds on the other at the next request', async () => {
    const admin = await signIn(a, ADMIN)
    const before = await signIn(b, { email: user.email, password: PASSWORD })
    expect((await request(b.url, 'GET', '/api/activity', { session: before })).status).toBe(403)

    expect((await request(a.url, 'PUT', `/api/admin/users/${user.id}`, { session: admin, body: { role: 'MODERATOR' } })).status).toBe(200)
    // The session from before the change is refused on the other instance at once...
    expect((await request(b.url, 'GET', '/api/auth/me', { session: before })).status).toBe(401)
    // ...and the new role is what the other instance sees.
    const after = await signIn(b, { email: user.email, password: PASSWORD })
    expect((await request(b.url, 'GET', '/api/activity', { session: after })).status).toBe(200)

    expect((await request(b.url, 'PUT', `/api/admin/users/${user.id}`, { session: admin, body: { role: 'CLIENT' } })).status).toBe(200)
    expect((await request(a.url, 'GET', '/api/activity', { session: after })).status).toBe(401)
    expect((await request(a.url, 'GET', '/api/activity', { session: await signIn(a, { email: user.email, password: PASSWORD }) })).status).toBe(403)
  })

  it('a throttle on one instance holds on the other at the next request', async () => {
    const email = `throttled-${crypto.randomBytes(4).toString('hex')}@example.com`
    const statuses: number[] = []
    // The account rule allows 10 failed sign-ins: they alternate between the instances.
    for (let i = 0; i < 10; i++) statuses.push((await request([a, b][i % 2]!.url, 'POST', '/api/auth/login', { body: { email, password: 'Wrong-Password-1!' } })).status)
    expect(statuses).toEqual(Array(10).fill(401))
    expect((await request(a.url, 'POST', '/api/auth/login', { body: { email, password: 'Wrong-Password-1!' } })).status).toBe(429)
    expect((await request(b.url, 'POST', '/api/auth/login', { body: { email, password: 'Wrong-Password-1!' } })).status).toBe(429)
  })

  it("a machine's token and API key from one instance work on the other, a key deleted on one is refused on the other, and both name it", async () => {
    const admin = await signIn(a, ADMIN)
    const created = await request(a.url, 'POST', '/api/admin/applications', {
      session: admin,
      body: { name: 'Fleet Payroll Sync', type: 'service', scopes: ['users:read', 'users:write', 'activity:read'] },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const service = created.body.data.application as { id: string; name: string }
    const clientSecret = created.body.data.clientSecret as string

    // openid-client as the machine, on instance A: the issuer is APP_URL's, the requests go to A.
    const onA = (url: string, options: client.CustomFetchOptions) =>
      fetch(url.replace('http://accounts.test', a.url), {
        ...(options as RequestInit),
        headers: { ...(options.headers as Record<string, string>), 'x-forwarded-for': CLIENT },
      })
    const config = await client.discovery(new URL('http://accounts.test/oidc'), service.id, {}, client.ClientSecretBasic(clientSecret), {
      execute: [client.allowInsecureRequests],
      [client.customFetch]: onA,
    })
    config[client.customFetch] = onA
    const tokens = await client.clientCredentialsGrant(config, { resource: 'http://accounts.test/api', scope: 'users:read users:write activity:read' })
    expect(tokens.refresh_token).toBeUndefined()

    // Issued by A, accepted by B.
    const listed = await request(b.url, 'GET', `/api/admin/users/${user.id}`, { bearer: tokens.access_token })
    expect(listed.status, JSON.stringify(listed.body)).toBe(200)
    expect(listed.body.data.email).toBe(user.email)

    // A key made through A works on B (and on A).
    const made = await request(a.url, 'POST', `/api/admin/applications/${service.id}/keys`, { session: admin, body: { name: 'Fleet key' } })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    const key = made.body.data as { key: { id: string }; secret: string }
    expect((await request(b.url, 'GET', `/api/admin/users/${user.id}`, { bearer: key.secret })).status).toBe(200)
    expect((await request(a.url, 'GET', `/api/admin/users/${user.id}`, { bearer: key.secret })).status).toBe(200)

    // Each instance writes an entry of the machine's change: an invitation through A with the key,
    // a deactivation through B with the token from A.
    const email = `fleet-hire-${crypto.randomBytes(4).toString('hex')}@example.com`
    const invited = await request(a.url, 'POST', '/api/admin/users', { bearer: key.secret, body: { name: 'Fleet Hire', email, role: 'CLIENT' } })
    expect(invited.status, JSON.stringify(invited.body)).toBe(201)
    const deactivated = await request(b.url, 'PUT', `/api/admin/users/${invited.body.data.id}`, { bearer: tokens.access_token, body: { status: 'INACTIVE' } })
    expect(deactivated.status, JSON.stringify(deactivated.body)).toBe(200)
    for (const instance of [a, b]) {
      const logs = await request(instance.url, 'GET', `/api/admin/activity-logs?search=${encodeURIComponent('Fleet Hire')}`, { session: admin })
      expect(logs.status).toBe(200)
      const entries = logs.body.data.activities as { activity: string; actor: unknown }[]
      expect(entries.length, JSON.stringify(entries)).toBeGreaterThanOrEqual(2)
      for (const entry of entries) expect(entry.actor, entry.activity).toEqual({ type: 'application', id: service.id, name: 'Fleet Payroll Sync' })
    }

    // The key deleted on B is refused on A at the very next request; the token lives on.
    expect((await request(b.url, 'DELETE', `/api/admin/applications/${service.id}/keys/${key.key.id}`, { session: admin })).status).toBe(200)
    const refused = await request(a.url, 'GET', `/api/admin/users/${user.id}`, { bearer: key.secret })
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('CREDENTIAL_INVALID')
    expect((await request(a.url, 'GET', `/api/admin/users/${user.id}`, { bearer: tokens.access_token })).status).toBe(200)

    // Disabling the application on B refuses A's token on A at the next request.
    expect((await request(b.url, 'PUT', `/api/admin/applications/${service.id}`, { session: admin, body: { enabled: false } })).status).toBe(200)
    expect((await request(a.url, 'GET', `/api/admin/users/${user.id}`, { bearer: tokens.access_token })).status).toBe(401)
  })

  it('stopping one instance with SIGTERM under a stream of requests loses none of them', async () => {
    const session = await signIn(proxy!, { email: user.email, password: PASSWORD })
    let stopped = false
    let writes = 0
    let lastAcknowledged = -1
    const failures: string[] = []
    const answered: number[] = []
    const worker = async (index: number) => {
      // Go on until well after the instance has gone, so the other one is shown taking everything.
      while (!stopped) {
        const seq = answered.length + failures.length
        try {
          if (index === 0) {
            const n = writes++
            const answer = await request(proxy!.url, 'PUT', '/api/users/profile', { session, body: { phone: String(n) }, signal: AbortSignal.timeout(15_000) })
            if (answer.status === 200) {
              lastAcknowledged = n
              answered.push(seq)
            } else {
              failures.push(`write ${n}: ${answer.status} ${JSON.stringify(answer.body)}`)
            }
          } else {
            const url = index % 2 ? '/api/auth/me' : '/api/health/ready'
            const answer = await request(proxy!.url, 'GET', url, { session, signal: AbortSignal.timeout(15_000) })
            if (answer.status === 200) answered.push(seq)
            else failures.push(`${url}: ${answer.status} ${JSON.stringify(answer.body)}`)
          }
        } catch (error) {
          failures.push(`${(error as Error).name}: ${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}`)
        }
      }
    }
    const workers = Array.from({ length: 8 }, (_, index) => worker(index))
    try {
      while (answered.length < 100) await sleep(20)
      a.child.kill('SIGTERM')
      expect((await a.exited).code, a.output().slice(-2000)).toBe(0)
      const atExit = answered.length
      while (answered.length < atExit + 100) await sleep(20)
    } finally {
      stopped = true
      await Promise.all(workers)
    }
    expect(failures, 'requests the proxy could not get answered').toEqual([])
    expect(answered.length).toBeGreaterThan(200)
    // The last write the client saw acknowledged is in the database.
    const [row] = await queryStore<{ phone: string }>({ dataDir: dirs[1]!, databaseUrl: database!.url }, `SELECT phone FROM users WHERE id = '${user.id}'`)
    expect(Number(row!.phone)).toBeGreaterThanOrEqual(lastAcknowledged)
    // And the instance left standing serves on.
    expect((await request(b.url, 'GET', '/api/health/ready')).status).toBe(200)
    expect(b.child.exitCode).toBeNull()
  })
})
