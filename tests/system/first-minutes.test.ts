import { afterEach, describe, expect, it } from 'vitest'
import { call, freePort, killStrayServers, printedAdmin, removeDataDir, runCommand, startServer, stopServer, emptyDataDir, tempDataDir } from './server-process'

/** Runs `npm run db:seed` as the command line does, with only these settings. */
const dbSeed = (env: Record<string, string>, args: string[]) => runCommand('src/server/cli/seed.ts', env, args)

/** A newcomer's first start: one address to open, the same in every e-mailed link, and a log one can read. */
describe('the first minutes with the server', () => {
  const dirs: string[] = []
  afterEach(async () => {
    await killStrayServers()
    for (const dir of dirs.splice(0)) removeDataDir(dir)
  })

  it('prints one address to open, and the e-mailed link it prints is on that address', async () => {
    const dataDir = emptyDataDir()
    dirs.push(dataDir)
    const server = await startServer({ DATA_DIR: dataDir, LOG_FORMAT: 'readable', LOG_LEVEL: 'info' })
    const address = `http://localhost:${server.port}`
    const ready = server
      .output()
      .split('\n')
      .find((line) => line.includes('is listening on'))!
    expect(ready).toBe(`Accounts is listening on port ${server.port} (this machine only). Open ${address}`)
    expect(server.output()).not.toContain('127.0.0.1')
    expect(server.output()).toContain(`outbox page: ${address}/dev/outbox`)

    const password = 'First-Minutes-2026!'
    const registered = await call(server, 'POST', '/api/auth/register', { name: 'New Comer', email: 'newcomer@example.com', password, confirmPassword: password })
    expect(registered.status).toBe(201)
    await waitFor(() => server.output().includes('Mail to newcomer@example.com'))
    const notice = server.output().slice(server.output().indexOf('Mail to newcomer@example.com'))
    expect(notice).toContain('Verify your email address - Accounts')
    expect(notice).toMatch(new RegExp(`→ ${address.replace(/[.:/]/g, '\\$&')}/verify-email\\?token=[\\w-]{43}&email=newcomer%40example\\.com`))

    // One short line per API request; the log's JSON stays out of a terminal's way.
    await call(server, 'GET', '/api/health')
    await waitFor(() => /\d\d:\d\d:\d\d GET \/api\/health 200 \d+ ms/.test(server.output()))
    expect(server.output()).toMatch(/\d\d:\d\d:\d\d POST \/api\/auth\/register 201 \d+ ms/)
    expect(server.output()).not.toContain('"msg":"incoming request"')
    expect((await stopServer(server)).code).toBe(0)
  })

  it('fills the embedded database with demo accounts, which the administrator then sees (not while the server runs)', async () => {
    const dataDir = tempDataDir()
    dirs.push(dataDir)
    const seeded = await dbSeed({ DATA_DIR: dataDir }, ['--users', '20', '--activities', '150'])
    expect(seeded.code, seeded.output).toBe(0)
    expect(seeded.output).toContain('seeded: 20 users, 150 activity entries')

    const server = await startServer({ DATA_DIR: dataDir })
    const refused = await dbSeed({ DATA_DIR: dataDir }, ['--users', '40'])
    expect(refused.code).toBe(1)
    expect(refused.output).toMatch(/^Cannot seed: .*already using the data directory/m)

    // The first administrator is created and printed even when the seed makes administrators too:
    // none of those is active (src/server/cli/seed.ts).
    const admin = printedAdmin(server.output())
    expect(admin, server.output()).not.toBeNull()
    const signedIn = await call(server, 'POST', '/api/auth/login', admin)
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200)
    const token = signedIn.body.data.accessToken as string
    const users = await call(server, 'GET', '/api/admin/users?limit=5', undefined, token)
    expect(users.body.data.pagination.total).toBe(21)
    const logs = await call(server, 'GET', '/api/admin/activity-logs?limit=5', undefined, token)
    expect(logs.body.data.pagination.total).toBeGreaterThanOrEqual(150)
    expect((await stopServer(server)).code).toBe(0)
  })

  it('logs JSON when told to, or when its output is not a terminal', async () => {
    const dataDir = tempDataDir()
    dirs.push(dataDir)
    const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' })
    await call(server, 'GET', '/api/health')
    await waitFor(() => server.output().includes('"msg":"request completed"'))
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"request completed"'))!
    expect(JSON.parse(line)).toMatchObject({ level: 30, res: { statusCode: 200 } })
    expect((await stopServer(server)).code).toBe(0)
  })

  /** A server started with these settings, and its log line that says `phrase`, read as JSON. */
  async function startedWithWarning(settings: Record<string, string>, phrase: string) {
    const dataDir = tempDataDir()
    dirs.push(dataDir)
    const server = await startServer({ DATA_DIR: dataDir, ...settings })
    await waitFor(() => server.output().includes(phrase))
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes(phrase))!
    return { server, warning: JSON.parse(line) as unknown }
  }

  it('says at start that the SMTP server of SMTP_URL cannot be used, and starts anyway', async () => {
    const port = await freePort()
    const { server, warning } = await startedWithWarning({ SMTP_URL: `smtp://mailer:Smtp-Secret-1@127.0.0.1:${port}` }, 'SMTP_URL cannot be used')
    expect(warning).toMatchObject({
      level: 40,
      msg: 'the SMTP server of SMTP_URL cannot be used now: mail waits in the queue and is retried. Check SMTP_URL',
      reason: expect.stringContaining('ECONNREFUSED'),
    })
    expect(server.output()).not.toContain('Smtp-Secret-1')
    expect((await call(server, 'GET', '/api/health')).status).toBe(200)
    expect((await stopServer(server)).code).toBe(0)
  })

  it('says at start that the Redis server of REDIS_URL cannot be reached, and starts anyway', async () => {
    const port = await freePort()
    const { server, warning } = await startedWithWarning({ RATE_LIMIT: 'on', REDIS_URL: `redis://:Redis-Secret-1@127.0.0.1:${port}` }, 'REDIS_URL cannot be reached')
    expect(warning).toMatchObject({
      level: 40,
      msg: 'the Redis server of REDIS_URL cannot be reached now: sign-in, registration and the other throttled requests answer 503 until it can, and /api/health/ready says not ready. Check REDIS_URL',
      reason: expect.stringContaining('ECONNREFUSED'),
    })
    expect(server.output()).not.toContain('Redis-Secret-1')
    expect((await call(server, 'GET', '/api/health/ready')).status).toBe(503)
    expect((await call(server, 'POST', '/api/auth/login', { email: 'someone@example.com', password: 'Whatever-It-Was-1!' })).status).toBe(503)
    expect((await stopServer(server)).code).toBe(0)
  })
})

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
