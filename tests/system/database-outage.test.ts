import { afterAll, describe, expect, it } from 'vitest'
import { call, createPostgresDatabase, killStrayServers, printedAdmin, removeDataDir, startServer, stopServer, tempDataDir, withTimeout } from './server-process'
import { TcpProxy } from './tcp-proxy'

/**
 * PostgreSQL goes away under the running server and comes back: meanwhile every answer that
 * needs the database is a prompt 503 with Retry-After (never a hang, never a crash), and once it
 * is back the same process serves again without a restart. Needs a PostgreSQL server
 * (TEST_DATABASE_URL); the embedded database cannot be cut from its process.
 */
const postgresUrl = process.env.TEST_DATABASE_URL

describe.skipIf(!postgresUrl)('the database going down and coming back', () => {
  afterAll(() => killStrayServers())

  it('answers 503 while it is unreachable and recovers by itself', async () => {
    const database = await createPostgresDatabase(postgresUrl!)
    const target = new URL(database.url)
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) })
    const viaProxy = new URL(database.url)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    const dataDir = tempDataDir(postgresUrl)
    try {
      const server = await startServer({ DATA_DIR: dataDir, DATABASE_URL: viaProxy.toString() })
      const admin = printedAdmin(server.output())!
      const signedIn = await call(server, 'POST', '/api/auth/login', admin)
      expect(signedIn.status).toBe(200)
      const token = signedIn.body.data.accessToken as string
      expect((await call(server, 'GET', '/api/auth/me', undefined, token)).status).toBe(200)

      // Traffic keeps flowing while the link is cut, so some requests are mid-query at that instant.
      let flowing = true
      const seen = new Set<number>()
      const traffic = Promise.all(
        Array.from({ length: 8 }, async (_, worker) => {
          while (flowing) {
            const answer = worker % 2 === 0 ? await call(server, 'GET', '/api/auth/me', undefined, token) : await call(server, 'GET', '/api/health')
            seen.add(answer.status)
          }
        }),
      )
      await new Promise((resolve) => setTimeout(resolve, 300))
      await proxy.cut()
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      flowing = false
      await traffic
      expect(
        [...seen].every((status) => status === 200 || status === 503),
        `statuses seen: ${[...seen]}`,
      ).toBe(true)
      expect(seen.has(503)).toBe(true)

      const during = await withTimeout(
        Promise.all([
          call(server, 'GET', '/api/health'),
          call(server, 'GET', '/api/auth/me', undefined, token),
          call(server, 'POST', '/api/auth/login', admin),
          call(server, 'POST', '/api/auth/forgot-password', { email: admin.email }),
        ]),
        20_000,
        () => 'requests hung while the database was unreachable',
      ).catch((error: Error) => {
        throw new Error(`${error.message}\nserver output:\n${server.output().slice(-4000)}`)
      })
      for (const answer of during) {
        expect(answer.status).toBe(503)
        expect(answer.headers.get('retry-after')).toBeTruthy()
        expect(answer.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', requestId: expect.any(String) })
        // Nothing about the cause leaks: no driver message, address or stack.
        expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|terminated|127\.0\.0\.1|at \w+ \(/)
      }
      expect(server.child.exitCode).toBeNull()
      // Readiness says so (a balancer sends traffic elsewhere); liveness does not (nothing restarts it).
      const ready = await call(server, 'GET', '/api/health/ready')
      expect(ready.status).toBe(503)
      expect(ready.body).toMatchObject({ success: false, message: 'Not ready: the database cannot be reached' })
      expect((await call(server, 'GET', '/api/health/live')).status).toBe(200)

      await proxy.restore()
      let health = await call(server, 'GET', '/api/health')
      for (let attempt = 0; health.status !== 200 && attempt < 60; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 500))
        health = await call(server, 'GET', '/api/health')
      }
      expect(health.status).toBe(200)
      expect((await call(server, 'GET', '/api/health/ready')).status).toBe(200)
      expect((await call(server, 'GET', '/api/auth/me', undefined, token)).status).toBe(200)
      expect((await call(server, 'POST', '/api/auth/login', admin)).status).toBe(200)

      const stopped = await stopServer(server)
      expect(stopped.code).toBe(0)
    } finally {
      await proxy.cut()
      await database.drop()
      removeDataDir(dataDir)
    }
  })
})
