import { hash } from '@node-rs/argon2'
import { describe, expect, it } from 'vitest'
import {
  call,
  createPostgresDatabase,
  killStrayServers,
  queryStore,
  removeDataDir,
  type ServerProcess,
  startServer,
  stopServer,
  tempDataDir,
  withTimeout,
  STORES,
} from './server-process'

/**
 * SIGKILL while users edit their profiles and an admin edits other accounts, all at once.
 * tests/system/crash-recovery.test.ts proves it for registrations; this one for changes to rows
 * that already exist, each with its activity entry: after a restart without repair, every
 * acknowledged edit is there, every stored edit has exactly its one entry, and no entry describes
 * an edit that is not there. Each writer renames one account step by step (#1, #2, ...), so the
 * entries must form an unbroken chain up to the stored name.
 */
const ADMIN = { email: 'crash.admin@example.com', password: 'Kept-Through-Restarts-42!' }
const PASSWORD = 'Renamed-Many-Times-42!'
const PROFILE_WRITERS = 6
const ADMIN_WRITERS = 2
const ACKNOWLEDGED_BEFORE_KILL = 60

interface Writer {
  label: string
  email: string
  /** The name after the i-th edit. */
  name(i: number): string
  /** The highest i the server acknowledged. */
  acknowledged: number
}

describe.each(STORES)('a server killed during edits on $store', ({ postgresUrl }) => {
  it('restarts without repair, with every acknowledged edit and exactly its activity entry', async () => {
    const dataDir = tempDataDir(postgresUrl)
    const database = postgresUrl ? await createPostgresDatabase(postgresUrl) : undefined
    const store = { dataDir, ...(database ? { databaseUrl: database.url } : {}) }
    const env = { DATA_DIR: dataDir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ...(database ? { DATABASE_URL: database.url } : {}) }
    try {
      // A first start creates the schema and the admin; the accounts to edit go straight in.
      const setup = await startServer(env)
      expect((await stopServer(setup)).code).toBe(0)
      const passwordHash = await hash(PASSWORD, { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 })
      const profileWriters: Writer[] = Array.from({ length: PROFILE_WRITERS }, (_, w) => ({
        label: `profile writer ${w}`,
        email: `self-${w}@example.com`,
        name: (i) => `Self ${w} #${i}`,
        acknowledged: 0,
      }))
      const adminWriters: Writer[] = Array.from({ length: ADMIN_WRITERS }, (_, a) => ({
        label: `admin writer ${a}`,
        email: `edited-${a}@example.com`,
        name: (i) => `Edited ${a} #${i}`,
        acknowledged: 0,
      }))
      const values = [...profileWriters, ...adminWriters].map((w) => `('${w.name(0)}', '${w.email}', '${passwordHash}', 'ACTIVE', now())`).join(', ')
      await queryStore(store, `INSERT INTO users (name, email, password_hash, status, email_verified_at) VALUES ${values}`)

      const server = await startServer(env)
      const signIn = async (email: string, password: string) => {
        const answer = await call(server, 'POST', '/api/auth/login', { email, password })
        expect(answer.status, JSON.stringify(answer.body)).toBe(200)
        return answer.body.data as { accessToken: string; csrfToken: string; user: { id: string } }
      }
      const admin = await signIn(ADMIN.email, ADMIN.password)
      const sessions = await Promise.all(profileWriters.map((w) => signIn(w.email, PASSWORD)))
      const targetIds = await Promise.all(
        adminWriters.map(async (w) => {
          const listed = await fetch(`${server.url}/api/admin/users?search=${encodeURIComponent(w.email)}`, { headers: { authorization: `Bearer ${admin.accessToken}` } })
          return ((await listed.json()) as { data: { users: { id: string }[] } }).data.users[0]!.id
        }),
      )

      let killed = false
      let acknowledgedTotal = 0
      let reachedTarget: () => void = () => {}
      const target = new Promise<void>((resolve) => (reachedTarget = resolve))
      const refused: string[] = []
      const put = (srv: ServerProcess, url: string, session: { accessToken: string; csrfToken: string }, body: unknown) =>
        fetch(`${srv.url}${url}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${session.accessToken}`, 'x-csrf-token': session.csrfToken, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      const run = async (writer: Writer, send: (name: string) => Promise<Response>) => {
        for (let i = 1; !killed; i++) {
          try {
            const answer = await send(writer.name(i))
            if (answer.status === 200) {
              // Any 200 that reached us was sent before the server died: it must be kept.
              writer.acknowledged = i
              if (++acknowledgedTotal >= ACKNOWLEDGED_BEFORE_KILL) reachedTarget()
            } else {
              refused.push(`${writer.label}: ${answer.status} ${await answer.text()}`)
              return
            }
          } catch {
            return // the connection died with the server: never acknowledged
          }
        }
      }
      const writers = [
        ...profileWriters.map((w, index) => run(w, (name) => put(server, '/api/users/profile', sessions[index]!, { name }))),
        ...adminWriters.map((w, index) => run(w, (name) => put(server, `/api/admin/users/${targetIds[index]}`, admin, { name }))),
      ]
      await withTimeout(target, 60_000, () => `only ${acknowledgedTotal} edits acknowledged:\n${server.output()}`)

      server.child.kill('SIGKILL')
      killed = true
      expect((await server.exited).signal).toBe('SIGKILL')
      await Promise.all(writers)
      expect(refused).toEqual([])

      // Restart on the same data: it serves at once and needs no repair.
      const second = await startServer(env)
      expect((await call(second, 'GET', '/api/health')).status).toBe(200)
      expect((await call(second, 'POST', '/api/auth/login', ADMIN)).status).toBe(200)
      expect(second.output()).not.toMatch(/error|corrupt|recover/i)
      expect((await stopServer(second)).code).toBe(0)

      const users = await queryStore<{ id: string; email: string; name: string }>(
        store,
        `SELECT id, email, name FROM users WHERE email LIKE 'self-%' OR email LIKE 'edited-%'`,
      )
      const entries = await queryStore<{ user_id: string; activity: string; details: string }>(
        store,
        `SELECT user_id, activity, details FROM activities WHERE activity = 'Updated profile' OR activity LIKE 'Updated user %' ORDER BY id`,
      )
      for (const writer of [...profileWriters, ...adminWriters]) {
        const user = users.find((u) => u.email === writer.email)!
        const stored = Number(user.name.split('#')[1])
        expect(stored, `${writer.label}: acknowledged #${writer.acknowledged}, stored ${user.name}`).toBeGreaterThanOrEqual(writer.acknowledged)
        // The entries are exactly the chain of edits that were stored: one per edit, none more.
        const chain = entries.filter((e) => e.user_id === user.id).map((e) => e.details)
        const expected = Array.from({ length: stored }, (_, j) => `name: ${writer.name(j)} → ${writer.name(j + 1)}`)
        expect(chain, writer.label).toEqual(expected)
      }
      expect(acknowledgedTotal).toBeGreaterThanOrEqual(ACKNOWLEDGED_BEFORE_KILL)
    } finally {
      await killStrayServers()
      await database?.drop()
      removeDataDir(dataDir)
    }
  })
})
