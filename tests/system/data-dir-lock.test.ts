import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type ServerProcess, spawnServer, startServer, stopServer, tempDataDir, withTimeout, killStrayServers, removeDataDir } from './server-process'

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
    await expect(ready).rejects.toThrow(/before listening/)
    const { code } = await withTimeout(second.exited, 30_000, () => 'the second server neither started nor exited')

    expect(code).not.toBe(0)
    expect(code).not.toBeNull()
    expect(second.output()).toContain(`Cannot start: Another process (pid ${first.child.pid}) is already using the data directory`)
    expect(second.output()).toContain('Stop it first, or give this one its own DATA_DIR.')
    expect(second.output()).not.toMatch(/^\s+at /m) // a message, not a stack trace

    const health = await call(first, 'GET', '/api/health')
    expect(health.status).toBe(200)
    expect(health.body.data).toMatchObject({ status: 'ok', database: 'pglite' })
    const stranger = await call(first, 'POST', '/api/auth/login', { email: 'nobody@example.com', password: 'Whatever-123!' })
    expect(stranger.status).toBe(401)
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
