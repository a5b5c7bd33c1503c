import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type ServerProcess, spawnServer, startOutcome, startServer, stopServer, tempDataDir, withTimeout, killStrayServers, removeDataDir } from './server-process'

describe('two servers on one embedded data directory', () => {
  let dataDir: string
  let first: ServerProcess
  beforeAll(async () => {
    dataDir = tempDataDir()
    first = await startServer({ DATA_DIR: dataDir })
  })
  afterAll(async () => {
    await killStrayServers()
    removeDataDir(dataDir)
  })

  it('the second refuses to start with a clear message and a non-zero exit, and the first keeps serving', async () => {
    const { process: second, ready } = await spawnServer({ DATA_DIR: dataDir })
    const outcome = await startOutcome(second, ready, 60_000, async () => `\nwhere the first waits:\n${await first.whereItWaits()}`)
    expect(outcome).toBe('exited')
    const { code } = await second.exited

    expect(code).not.toBe(0)
    expect(code).not.toBeNull()
    // The pid, unless the first was too busy to say it within 3 s (src/server/db/data-dir-lock.ts).
    expect(second.output()).toMatch(new RegExp(`Cannot start: Another process( \\(pid ${first.child.pid}\\))? is already using the data directory`))
    expect(second.output()).toContain('Stop it first, or give this one its own DATA_DIR.')
    expect(second.output()).not.toMatch(/^\s+at /m) // a message, not a stack trace

    const health = await call(first, 'GET', '/api/health')
    expect(health.status).toBe(200)
    expect(health.body.data).toMatchObject({ status: 'ok', database: 'pglite' })
    const stranger = await call(first, 'POST', '/api/auth/login', { email: 'nobody@example.com', password: 'Whatever-123!' })
    expect(stranger.status).toBe(401)
  })

  it('the second refuses without waiting for a first that cannot answer (stopped), and the first serves again when it goes on', async () => {
    first.child.kill('SIGSTOP')
    try {
      const { process: second } = await spawnServer({ DATA_DIR: dataDir })
      const { code } = await withTimeout(second.exited, 60_000, () => `the second server waited for the stopped first:\n${second.output()}`)
      expect(code).not.toBe(0)
      expect(second.output()).toContain('Cannot start: Another process is already using the data directory')
    } finally {
      first.child.kill('SIGCONT')
    }
    expect((await call(first, 'GET', '/api/health')).status).toBe(200)
  })

  it('the directory is free again once the first has stopped', async () => {
    expect((await stopServer(first)).code).toBe(0)
    const next = await startServer({ DATA_DIR: dataDir })
    try {
      expect((await call(next, 'GET', '/api/health')).status).toBe(200)
    } finally {
      expect((await stopServer(next)).code).toBe(0)
    }
  })
})
