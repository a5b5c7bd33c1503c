import { afterEach, describe, expect, it } from 'vitest'
import { call, killStrayServers, removeDataDir, startServer, stopServer, tempDataDir } from './server-process'

/** A newcomer's first start: one address to open, the same in every e-mailed link, and a log one can read. */
describe('the first minutes with the server', () => {
  const dirs: string[] = []
  afterEach(async () => {
    await killStrayServers()
    for (const dir of dirs.splice(0)) removeDataDir(dir)
  })

  it('prints one address to open, and the e-mailed link it prints is on that address', async () => {
    const dataDir = tempDataDir()
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
})

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
