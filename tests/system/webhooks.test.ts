import crypto from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { afterAll, describe, expect, it } from 'vitest'
import { startReceiver, type Receiver } from '../support/webhook-receiver'
import {
  call,
  createPostgresDatabase,
  freePort,
  killStrayServers,
  printedAdmin,
  queryStore,
  removeDataDir,
  type ServerProcess,
  startServer,
  stopServer,
  STORES,
  tempDataDir,
  emptyDataDir,
  withTimeout,
} from './server-process'
import { POSTGRES_URL, postgresMissing } from './services'

/**
 * Webhooks from whole server processes: an event committed just before a `kill -9` is delivered
 * once the server is back, and two instances on one PostgreSQL deliver each event once between
 * them. A real receiver checks every delivery with the `standardwebhooks` package.
 */
const PASSWORD = 'Hooked-On-Events-42!'

const receivers: Receiver[] = []
afterAll(async () => {
  for (const receiver of receivers) await receiver.close()
  await killStrayServers()
})

/** Resolves when the receiver holds `count` deliveries that pass `keep`, polling its list (the server sends on its own schedule). */
async function received(receiver: Receiver, count: number, keep: (body: { type: string }) => boolean, explain: () => string) {
  const matching = () => receiver.received.filter((request) => keep(JSON.parse(request.body) as { type: string }))
  await withTimeout(
    (async () => {
      while (matching().length < count) await new Promise((resolve) => setTimeout(resolve, 100))
    })(),
    60_000,
    () => `${matching().length} of ${count} deliveries arrived:\n${explain()}`,
  )
  return matching()
}

async function signIn(server: ServerProcess, credentials: { email: string; password: string }): Promise<{ accessToken: string; csrfToken: string }> {
  const answer = await call(server, 'POST', '/api/auth/login', credentials)
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body.data
}

async function addEndpoint(server: ServerProcess, admin: { accessToken: string; csrfToken: string }, url: string, events: string[]): Promise<string> {
  const response = await fetch(`${server.url}/api/admin/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.accessToken}`, 'x-csrf-token': admin.csrfToken },
    body: JSON.stringify({ url, events }),
  })
  const body = (await response.json()) as { data: { secret: string } }
  expect(response.status, JSON.stringify(body)).toBe(201)
  return body.data.secret
}

describe.each(STORES)('webhooks on $store', ({ postgresUrl }) => {
  it('delivers an event committed just before kill -9, after the restart', async () => {
    const dataDir = tempDataDir(postgresUrl)
    const database = postgresUrl ? await createPostgresDatabase(postgresUrl) : undefined
    const env = { DATA_DIR: dataDir, RATE_LIMIT: 'off', ...(database ? { DATABASE_URL: database.url } : {}) }
    try {
      const first = await startServer(env)
      const admin = printedAdmin(first.output())!
      // The receiver is not listening yet: nothing can be delivered before the kill.
      const port = await freePort()
      const secret = await addEndpoint(first, await signIn(first, admin), `http://127.0.0.1:${port}/hook`, ['user.created'])
      const email = `killed-${crypto.randomBytes(4).toString('hex')}@example.com`
      const registered = await call(first, 'POST', '/api/auth/register', { name: 'Kim Killed', email, password: PASSWORD, confirmPassword: PASSWORD })
      expect(registered.status).toBe(201)
      first.child.kill('SIGKILL')
      expect((await first.exited).signal).toBe('SIGKILL')

      const receiver = await startReceiver(port)
      receivers.push(receiver)
      const second = await startServer(env)
      const [delivery] = await received(
        receiver,
        1,
        () => true,
        () => second.output(),
      )
      const payload = new Webhook(secret).verify(delivery!.body, delivery!.headers) as { type: string; data: { user: { email: string } } }
      expect(payload.type).toBe('user.created')
      expect(payload.data.user.email).toBe(email)
      expect((await stopServer(second)).code).toBe(0)
    } finally {
      await killStrayServers()
      await database?.drop().catch(() => {})
      removeDataDir(dataDir)
    }
  })
})

const missing = await postgresMissing()

describe.skipIf(missing)(`two instances on one PostgreSQL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('deliver each event once between them', async () => {
    const database = await createPostgresDatabase(POSTGRES_URL)
    const dirs = [emptyDataDir(), emptyDataDir()]
    const admin = { email: 'hooks.admin@example.com', password: 'Two-Senders-One-Queue-7!' }
    try {
      const env = {
        DATABASE_URL: database.url,
        AUTH_SECRET: crypto.randomBytes(32).toString('hex'),
        RATE_LIMIT: 'off',
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        LOG_LEVEL: 'warn',
      }
      const a = await startServer({ ...env, DATA_DIR: dirs[0]! })
      const b = await startServer({ ...env, DATA_DIR: dirs[1]! })
      const receiver = await startReceiver()
      receivers.push(receiver)
      const secret = await addEndpoint(a, await signIn(a, admin), receiver.url(), ['user.created'])
      const people = 24
      await Promise.all(
        Array.from({ length: people }, async (_, i) => {
          const server = i % 2 === 0 ? a : b
          const answer = await call(server, 'POST', '/api/auth/register', {
            name: `Twin ${i}`,
            email: `twin-${i}-${crypto.randomBytes(3).toString('hex')}@example.com`,
            password: PASSWORD,
            confirmPassword: PASSWORD,
          })
          expect(answer.status).toBe(201)
        }),
      )
      const deliveries = await received(
        receiver,
        people,
        (body) => body.type === 'user.created',
        () => `${a.output()}\n${b.output()}`,
      )
      for (const delivery of deliveries) new Webhook(secret).verify(delivery.body, delivery.headers)
      // Both instances have delivered everything due; any second attempt would already be here.
      const ids = deliveries.map((delivery) => delivery.headers['webhook-id'])
      expect(new Set(ids).size).toBe(people)
      // Each attempt made once; its outcome is written by the sender's next pass or within 250 ms (decision 0563).
      const states = async () =>
        (await queryStore<{ status: string; attempts: number }>({ dataDir: dirs[0]!, databaseUrl: database.url }, 'SELECT status, attempts FROM webhook_deliveries')).map(
          (row) => `${row.status} ${row.attempts}`,
        )
      await expect.poll(states, { timeout: 10_000 }).toEqual(Array.from({ length: people }, () => 'delivered 1'))
      await stopServer(a)
      await stopServer(b)
    } finally {
      await killStrayServers()
      await database.drop().catch(() => {})
      for (const dir of dirs) removeDataDir(dir)
    }
  })
})
