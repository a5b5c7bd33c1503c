import { describe, expect, it } from 'vitest'
import { call, createPostgresDatabase, killStrayServers, removeDataDir, STORES, startServer, stopServer, tempDataDir } from './server-process'

/**
 * The same user deleted by several requests at the same instant, over real HTTP connections to a
 * real server: exactly one 200, the others 404, never a 500, and exactly one "Deleted user" entry.
 * On the embedded database, or on PostgreSQL (where the requests really run in parallel
 * transactions) when TEST_DATABASE_URL names a server.
 */
const ADMIN = { email: 'delete.race.admin@example.com', password: 'Two-Clicks-At-Once-42!' }
const TARGETS = 8
const RACERS = 4

describe.each(STORES)('deleting one user from several requests at once on $store', ({ postgresUrl }) => {
  it('answers one 200 and 404s, never a 500, and records the deletion once', async () => {
    const dataDir = tempDataDir(postgresUrl)
    const database = postgresUrl ? await createPostgresDatabase(postgresUrl) : undefined
    try {
      const server = await startServer({
        DATA_DIR: dataDir,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        ...(database ? { DATABASE_URL: database.url } : {}),
      })
      const session = (await call(server, 'POST', '/api/auth/login', ADMIN)).body.data as { accessToken: string; csrfToken: string }
      const asAdmin = (method: string, url: string, body?: unknown) =>
        fetch(`${server.url}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${session.accessToken}`,
            'x-csrf-token': session.csrfToken,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        })

      // Accounts to delete: registered, then made INACTIVE by the admin (deletion needs that).
      const targets: { id: string; email: string }[] = []
      for (let i = 0; i < TARGETS; i++) {
        const email = `leaving-${i}@example.com`
        const registered = await call(server, 'POST', '/api/auth/register', {
          name: `Leaving ${i}`,
          email,
          password: 'Gone-Tomorrow-2026!',
          confirmPassword: 'Gone-Tomorrow-2026!',
        })
        expect(registered.status).toBe(201)
        const found = (await (await asAdmin('GET', `/api/admin/users?search=${encodeURIComponent(email)}`)).json()) as { data: { users: { id: string }[] } }
        const id = found.data.users[0]!.id
        expect((await asAdmin('PUT', `/api/admin/users/${id}`, { status: 'INACTIVE' })).status).toBe(200)
        targets.push({ id, email })
      }

      // Every target deleted by RACERS requests, all of them sent together.
      const answers = await Promise.all(
        targets.map(async (target) => ({
          target,
          statuses: await Promise.all(Array.from({ length: RACERS }, async () => (await asAdmin('DELETE', `/api/admin/users/${target.id}`)).status)),
        })),
      )
      for (const { target, statuses } of answers) {
        expect(statuses.sort(), target.email).toEqual([200, ...Array(RACERS - 1).fill(404)])
      }

      const logs = (await (await asAdmin('GET', '/api/admin/activity-logs?activity=deleted&limit=100')).json()) as { data: { activities: { activity: string }[] } }
      for (const target of targets) {
        const entries = logs.data.activities.filter((entry) => entry.activity === `Deleted user Leaving ${target.email.match(/\d+/)![0]} (${target.email})`)
        expect(entries, target.email).toHaveLength(1)
      }
      expect(server.output()).not.toMatch(/"level":50/)
      expect((await stopServer(server)).code).toBe(0)
    } finally {
      await killStrayServers()
      await database?.drop()
      removeDataDir(dataDir)
    }
  })
})
