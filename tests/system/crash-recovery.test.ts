import { describe, expect, it } from 'vitest'
import {
  call,
  createPostgresDatabase,
  printedAdmin,
  queryStore,
  startServer,
  stopServer,
  tempDataDir,
  withTimeout,
  killStrayServers,
  removeDataDir,
  STORES,
} from './server-process'

/**
 * The server is killed with SIGKILL while clients keep registering. Every registration answered
 * 201 before it died must be there after a restart (a 2xx means committed), each with its activity
 * entry, and the restart needs no repair. On the embedded database, or on PostgreSQL when
 * TEST_DATABASE_URL names a server.
 */
const PASSWORD = 'Durable-Writes-42!'
const WRITERS = 8
const ACKNOWLEDGED_BEFORE_KILL = 30

describe.each(STORES)('a server killed mid-stream on $store', ({ postgresUrl }) => {
  it('restarts without repair, with every acknowledged registration and its activity entry', async () => {
    const dataDir = tempDataDir(postgresUrl)
    const database = postgresUrl ? await createPostgresDatabase(postgresUrl) : undefined
    const env = { DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) }
    try {
      const first = await startServer(env)
      const admin = printedAdmin(first.output())
      expect(admin, first.output()).not.toBeNull()

      const acknowledged: string[] = []
      const refused: string[] = []
      let killed = false
      let reachedTarget: () => void = () => {}
      const target = new Promise<void>((resolve) => (reachedTarget = resolve))

      const writer = async (worker: number) => {
        for (let i = 0; !killed; i++) {
          const email = `crash-${worker}-${i}@example.com`
          try {
            const answer = await call(first, 'POST', '/api/auth/register', {
              name: `Writer ${worker}`,
              email,
              password: PASSWORD,
              confirmPassword: PASSWORD,
            })
            // Any 201 that reached us was sent by the server before it died: it must be kept.
            if (answer.status === 201) acknowledged.push(email)
            else refused.push(`${answer.status} ${JSON.stringify(answer.body)}`)
            if (acknowledged.length >= ACKNOWLEDGED_BEFORE_KILL) reachedTarget()
          } catch {
            // The connection died with the server: this write was never acknowledged.
          }
        }
      }
      const writers = Array.from({ length: WRITERS }, (_, worker) => writer(worker))
      await withTimeout(target, 60_000, () => `only ${acknowledged.length} registrations acknowledged:\n${first.output()}`)

      first.child.kill('SIGKILL')
      killed = true
      expect((await first.exited).signal).toBe('SIGKILL')
      await Promise.all(writers)
      expect(refused).toEqual([])
      expect(acknowledged.length).toBeGreaterThanOrEqual(ACKNOWLEDGED_BEFORE_KILL)

      // Restart on the same data: it serves at once, and the first administrator still signs in.
      const second = await startServer(env)
      expect((await call(second, 'GET', '/api/health')).status).toBe(200)
      const login = await call(second, 'POST', '/api/auth/login', admin)
      expect(login.status, JSON.stringify(login.body)).toBe(200)
      expect(second.output()).not.toMatch(/error|corrupt|recover/i)
      expect(printedAdmin(second.output())).toBeNull()
      expect((await stopServer(second)).code).toBe(0)

      const rows = await queryStore<{ email: string; entries: number }>(
        { dataDir, ...(database ? { databaseUrl: database.url } : {}) },
        `SELECT u.email, count(a.id)::int AS entries
           FROM users u LEFT JOIN activities a ON a.user_id = u.id AND a.activity = 'Registered'
          WHERE u.email LIKE 'crash-%'
          GROUP BY u.email`,
      )
      const stored = new Map(rows.map((row) => [row.email, row.entries]))
      const missing = acknowledged.filter((email) => !stored.has(email))
      expect(missing, `acknowledged but lost (${missing.length} of ${acknowledged.length})`).toEqual([])
      // Every stored registration, acknowledged or cut off before its answer, has exactly one entry.
      for (const [email, entries] of stored) expect(entries, email).toBe(1)
    } finally {
      await killStrayServers()
      await database?.drop()
      removeDataDir(dataDir)
    }
  })
})
