import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EMBEDDED_POSTGRES_MAJOR } from '~server/db/database'
import { killStrayServers, removeDataDir, spawnServer, startServer, stopServer, tempDataDir, withTimeout, call } from './server-process'

/**
 * An upgrade whose embedded database is built on another PostgreSQL major version cannot open the
 * data directory the previous one made. The server says so, and what to do, before touching it.
 */
describe('an embedded database made by another PostgreSQL major version', () => {
  let dataDir: string
  let versionFile: string
  beforeAll(() => {
    dataDir = tempDataDir()
    versionFile = path.join(dataDir, 'pgdata', 'PG_VERSION')
  })
  afterAll(async () => {
    await killStrayServers()
    removeDataDir(dataDir)
  })

  it('is the version PGlite itself writes into a data directory it creates', () => {
    // The copied data directory was created by this run's PGlite (tests/support/global-data-dir.ts).
    expect(fs.readFileSync(versionFile, 'utf8').trim()).toBe(EMBEDDED_POSTGRES_MAJOR)
  })

  it('is refused at start with a sentence saying what to do, a non-zero exit, and the folder left as it was', async () => {
    const older = String(Number(EMBEDDED_POSTGRES_MAJOR) - 1)
    fs.writeFileSync(versionFile, `${older}\n`)
    const before = fs.readdirSync(path.join(dataDir, 'pgdata'), { recursive: true }).length

    const { process: server, ready } = await spawnServer({ DATA_DIR: dataDir })
    await expect(ready).rejects.toThrow(/before listening/)
    const { code } = await withTimeout(server.exited, 30_000, () => 'the server neither started nor exited')

    expect(code).not.toBe(0)
    expect(code).not.toBeNull()
    expect(server.output()).toContain(
      `Cannot start: The embedded database in ${path.join(dataDir, 'pgdata')} was made by PostgreSQL ${older}; this version of Accounts embeds PostgreSQL ${EMBEDDED_POSTGRES_MAJOR} and cannot open it.`,
    )
    expect(server.output()).toContain('npm run db:copy -- --to postgres://')
    expect(server.output()).not.toMatch(/^\s+at /m) // a message, not a stack trace
    expect(fs.readFileSync(versionFile, 'utf8')).toBe(`${older}\n`)
    expect(fs.readdirSync(path.join(dataDir, 'pgdata'), { recursive: true })).toHaveLength(before)
  })

  it('starts again, on the same folder, once the version is its own (the lock was let go)', async () => {
    fs.writeFileSync(versionFile, `${EMBEDDED_POSTGRES_MAJOR}\n`)
    const server = await startServer({ DATA_DIR: dataDir })
    try {
      expect((await call(server, 'GET', '/api/health')).body.data).toMatchObject({ status: 'ok', database: 'pglite' })
    } finally {
      expect((await stopServer(server)).code).toBe(0)
    }
  })
})
