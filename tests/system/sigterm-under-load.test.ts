import { setTimeout as sleep } from 'node:timers/promises'
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
  STORES,
} from './server-process'

/**
 * SIGTERM while clients keep the server busy (reads, writes, sign-ins that cost a password hash).
 * tests/system/graceful-shutdown.test.ts proves the shutdown with a batch of requests known to be
 * in flight; this one proves it under a steady stream: every request the server took in is
 * answered (the log says which it took in), nothing hangs, nothing is a 500, what comes after the
 * signal is a 503 or a refused connection, the process exits 0 within 10 s, and the last
 * acknowledged write is in the database afterwards.
 */
const ADMIN = { email: 'shutdown.admin@example.com', password: 'Steady-Stream-Of-Calls-42!' }
const WORKERS = 16
/** Any request still unanswered after this long counts as hung. */
const HANG_MS = 15_000

interface Outcome {
  seq: number
  kind: string
  startedAt: number
  status?: number
  failure?: string
}

async function attempt(server: ServerProcess, seq: number, kind: string, token: string, csrf: string): Promise<Outcome> {
  const startedAt = Date.now()
  // Each request carries its number as `page`, one of the few parameters whose values the log keeps
  // (decision 0304), so that the log says which requests the server took in. These calls ignore it.
  const requests: Record<string, () => [string, RequestInit]> = {
    health: () => [`/api/health?page=${seq}`, {}],
    me: () => [`/api/auth/me?page=${seq}`, { headers: { authorization: `Bearer ${token}` } }],
    write: () => [
      `/api/users/profile?page=${seq}`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'x-csrf-token': csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ phone: String(seq) }),
      },
    ],
    login: () => [
      `/api/auth/login?page=${seq}`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN.email, password: 'Not-The-Password-1!' }) },
    ],
  }
  const [path, init] = requests[kind]!()
  try {
    const response = await fetch(`${server.url}${path}`, { ...init, signal: AbortSignal.timeout(HANG_MS) })
    await response.arrayBuffer()
    return { seq, kind, startedAt, status: response.status }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; name?: string } }).cause
    const name = (error as Error).name
    return { seq, kind, startedAt, failure: name === 'TimeoutError' || name === 'AbortError' ? 'HUNG' : (cause?.code ?? cause?.name ?? (error as Error).message) }
  }
}

describe.each(STORES)('SIGTERM under a steady stream of requests on $store', ({ postgresUrl }) => {
  it('answers everything it took in, refuses the rest promptly, exits 0 within 10 s and keeps the last acknowledged write', async () => {
    const dataDir = tempDataDir(postgresUrl)
    const database = postgresUrl ? await createPostgresDatabase(postgresUrl) : undefined
    const env = {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ...(database ? { DATABASE_URL: database.url } : {}),
    }
    try {
      const server = await startServer(env)
      const session = await call(server, 'POST', '/api/auth/login', ADMIN)
      expect(session.status).toBe(200)
      const { accessToken, csrfToken } = session.body.data as { accessToken: string; csrfToken: string }

      const outcomes: Outcome[] = []
      let seq = 0
      let signalledAt = Infinity
      let exited = false
      void server.exited.then(() => (exited = true))
      const kinds = ['health', 'me', 'write', 'login']
      // One writer only, so "the last acknowledged write" is well defined.
      const worker = async (index: number) => {
        const kind = index === 0 ? 'write' : kinds[index % kinds.length] === 'write' ? 'me' : kinds[index % kinds.length]!
        let refusedInARow = 0
        while (!exited && refusedInARow < 3) {
          const outcome = await attempt(server, ++seq, kind, accessToken, csrfToken)
          outcomes.push(outcome)
          refusedInARow = outcome.failure && outcome.startedAt > signalledAt ? refusedInARow + 1 : 0
        }
      }
      const workers = Array.from({ length: WORKERS }, (_, index) => worker(index))

      // Busy for a while, then the signal, with the stream still running.
      while (outcomes.filter((o) => o.status === 200 && o.kind === 'write').length < 10) await sleep(20)
      await sleep(300)
      signalledAt = Date.now()
      server.child.kill('SIGTERM')
      const { code } = await server.exited
      const exitMs = Date.now() - signalledAt
      await Promise.all(workers)

      expect(code, server.output().slice(-3000)).toBe(0)
      expect(exitMs).toBeLessThan(10_000)
      expect(server.output()).not.toMatch(/shutdown took too long|shutdown failed/)

      const hung = outcomes.filter((o) => o.failure === 'HUNG')
      expect(hung, 'requests that never got an answer').toEqual([])
      const serverErrors = outcomes.filter((o) => o.status !== undefined && o.status >= 500 && o.status !== 503)
      expect(serverErrors, 'answers that were a 5xx other than 503').toEqual([])
      // A request sent on a kept-alive connection at the instant the server closes it may meet a
      // reset instead: the server never took it in (checked below), and the client may retry it.
      const beforeSignal = outcomes.filter((o) => o.startedAt < signalledAt && o.status !== undefined)
      expect(beforeSignal.length).toBeGreaterThan(50)
      for (const outcome of beforeSignal) expect([200, 401, 503], `${outcome.kind} #${outcome.seq}`).toContain(outcome.status)
      // Late requests: a 503 while it drains, or no connection at all.
      for (const outcome of outcomes.filter((o) => o.startedAt > signalledAt + 50 && o.status !== undefined)) {
        expect([503, 200, 401], `${outcome.kind} #${outcome.seq} after the signal`).toContain(outcome.status)
      }

      // Every request the server took in (logged as incoming) got its answer to the client.
      const output = server.output()
      const takenIn = new Set([...output.matchAll(/"url":"[^"]*\?page=(\d+)"[^\n]*"msg":"incoming request"/g)].map((m) => Number(m[1])))
      const unanswered = outcomes.filter((o) => o.failure && takenIn.has(o.seq))
      expect(unanswered, 'taken in by the server, yet cut off').toEqual([])
      expect(takenIn.size).toBeGreaterThan(50)

      // The last write the client saw acknowledged is stored (or a later one that was in flight).
      const acknowledged = Math.max(...outcomes.filter((o) => o.kind === 'write' && o.status === 200).map((o) => o.seq))
      const [row] = await queryStore<{ phone: string }>(
        { dataDir, ...(database ? { databaseUrl: database.url } : {}) },
        `SELECT phone FROM users WHERE email = '${ADMIN.email}'`,
      )
      expect(Number(row!.phone)).toBeGreaterThanOrEqual(acknowledged)

      // And the data opens again for a new server.
      const again = await startServer(env)
      expect((await call(again, 'GET', '/api/health')).status).toBe(200)
      expect((await stopServer(again)).code).toBe(0)
    } finally {
      await killStrayServers()
      await database?.drop()
      removeDataDir(dataDir)
    }
  })
})
