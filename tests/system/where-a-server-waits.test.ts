import { afterAll, describe, expect, it } from 'vitest'
import { killStrayServers, removeDataDir, startServer, stopServer, tempDataDir } from './server-process'

/**
 * A server that does not start in time fails its test with where it waits (Node.js's diagnostic
 * report, tests/support/server-process.ts), so that a rare hang can be told from a slow machine.
 * Asked of a server that listens and has nothing to do, the answer names its event loop's handles.
 */
describe('where a server waits', () => {
  const dataDir = tempDataDir()
  afterAll(async () => {
    await killStrayServers()
    removeDataDir(dataDir)
  })

  it('is read from its diagnostic report: the JavaScript and native stacks and the active handles', async () => {
    const server = await startServer({ DATA_DIR: dataDir })
    try {
      const answer = await server.whereItWaits()
      expect(answer).toMatch(/^JavaScript: /)
      expect(answer).toContain('native:')
      // Listening: at least the server's TCP handle.
      expect(answer).toMatch(/the event loop's active handles: .*tcp \d+/)
    } finally {
      expect((await stopServer(server)).code).toBe(0)
    }
  })
})
