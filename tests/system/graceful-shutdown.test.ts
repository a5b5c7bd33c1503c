import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { call, type JsonAnswer, queryStore, startServer, stopServer, tempDataDir, killStrayServers, removeDataDir } from './server-process'

const PASSWORD = 'Graceful-Exit-2026!'

describe('SIGTERM while requests are in flight', () => {
  it('finishes them, refuses new ones, exits 0 within 10 s, and leaves a directory that opens cleanly', async () => {
    const dataDir = tempDataDir()
    try {
      // At info level the server logs each request it has taken in: the test waits for those lines.
      const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' })
      const takenIn = () => server.output().match(/"url":"\/api\/auth\/register".*"msg":"incoming request"/g)?.length ?? 0
      const register = (email: string) => call(server, 'POST', '/api/auth/register', { name: 'Shutdown Test', email, password: PASSWORD, confirmPassword: PASSWORD })

      // Registrations take a while (password hashing runs one per core): these are in flight.
      const inFlight = Array.from({ length: 12 }, (_, i) => `inflight-${i}@example.com`)
      const answers = inFlight.map((email) => register(email))
      while (takenIn() < inFlight.length) await sleep(10)

      const signalled = Date.now()
      server.child.kill('SIGTERM')
      // Once the server has begun to shut down (its health check no longer answers 200)...
      for (;;) {
        const health = await call(server, 'GET', '/api/health').catch((error: Error) => error)
        if (health instanceof Error || health.status !== 200) break
        expect(Date.now() - signalled).toBeLessThan(5_000)
        await sleep(20)
      }
      // ...new requests are refused (503 on a kept-alive connection, or no connection at all).
      const late: (JsonAnswer | Error)[] = await Promise.all(Array.from({ length: 5 }, (_, i) => register(`late-${i}@example.com`).catch((error: Error) => error)))

      const finished = await Promise.all(answers)
      expect(finished.map((a) => a.status)).toEqual(inFlight.map(() => 201))
      for (const answer of late) {
        if (answer instanceof Error) continue
        expect(answer.status).toBe(503)
        expect(answer.body).toMatchObject({ success: false, code: 'SHUTTING_DOWN' })
        expect(answer.headers.get('retry-after')).toBe('5')
      }

      const { code } = await server.exited
      expect(code, server.output()).toBe(0)
      expect(Date.now() - signalled).toBeLessThan(10_000)
      expect(server.output()).not.toMatch(/shutdown took too long|shutdown failed/)

      // The database was closed properly: it opens directly, and holds every finished registration.
      const rows = await queryStore<{ email: string }>({ dataDir }, `SELECT email FROM users WHERE email LIKE 'inflight-%'`)
      expect(rows.map((r) => r.email).sort()).toEqual([...inFlight].sort())

      // And the server starts on it again.
      const again = await startServer({ DATA_DIR: dataDir })
      expect((await call(again, 'GET', '/api/health')).status).toBe(200)
      expect((await stopServer(again)).code).toBe(0)
    } finally {
      await killStrayServers()
      removeDataDir(dataDir)
    }
  })
})
