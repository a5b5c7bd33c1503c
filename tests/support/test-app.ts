import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import pino from 'pino'
import { afterAll, beforeAll } from 'vitest'
import type { Role, Status } from '~shared/constants'
import { buildApp } from '~server/app'
import { type Config, loadConfig } from '~server/config/env'
import type { AppContext } from '~server/context'
import { ensureAccount } from '~server/use-cases/users/ensure-account'
import { loggerOptions } from '~server/http/logging'
import { readOutbox } from '~server/mail/transport'
import { type Runtime, startRuntime } from '~server/runtime'
import { type ContractViolation, installResponseContract } from './response-contract'
import { openTestDatabase } from './test-database'

/**
 * The real application for a test: the same runtime and Fastify app as `npm start`, on a database
 * of its own, with an adjustable clock, mail in an outbox folder of its own (or SMTP when the
 * test sets SMTP_URL), and every log line kept so tests can read them.
 */

export class TestClock {
  private current = new Date('2026-06-01T12:00:00.000Z')
  readonly now = () => new Date(this.current)
  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000)
  }
}

export interface RequestOptions {
  body?: unknown
  token?: string
  csrf?: string
  headers?: Record<string, string>
  /** A raw body sent as-is (with its own content type in `headers`). */
  payload?: string | Buffer
  remoteAddress?: string
}

export interface SignedIn {
  id: string
  email: string
  password: string
  accessToken: string
  refreshToken: string
  csrfToken: string
}

export interface TestApp {
  app: FastifyInstance
  ctx: AppContext
  runtime: Runtime
  clock: TestClock
  config: Config
  logs: string[]
  request(method: string, url: string, options?: RequestOptions): Promise<LightMyRequestResponse>
  /** Sends every queued e-mail now. */
  deliverMail(): Promise<void>
  outbox(): ReturnType<typeof readOutbox>
  /** Creates an ACTIVE, verified account directly (as `npm run user:create` would). */
  createUser(input?: { role?: Role; email?: string; name?: string; password?: string; status?: Status }): Promise<{ id: string; email: string; password: string }>
  /** Creates an account and signs it in through the API. */
  signIn(input?: { role?: Role; email?: string; name?: string }): Promise<SignedIn>
  login(email: string, password: string, remoteAddress?: string): Promise<LightMyRequestResponse>
  close(): Promise<void>
}

let counter = 0
export const uniqueEmail = (prefix = 'user') => `${prefix}-${process.pid}-${++counter}-${crypto.randomBytes(3).toString('hex')}@example.com`
export const STRONG_PASSWORD = 'Correct-Horse-7-Battery!'

export async function createTestApp(env: Record<string, string> = {}, options: { poolSize?: number } = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-test-'))
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    APP_URL: 'http://app.test',
    AUTH_SECRET: crypto.randomBytes(32).toString('hex'),
    RATE_LIMIT: 'off',
    LOG_LEVEL: 'info',
    ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
    ...env,
  })
  const logs: string[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...chunk.toString().split('\n').filter(Boolean))
      done()
    },
  })
  const logger = pino(loggerOptions(config.logLevel) as pino.LoggerOptions, sink)
  const clock = new TestClock()
  const database = await openTestDatabase(options)
  const runtime = await startRuntime(config, {
    database,
    clock: clock.now,
    logger,
    redisPrefix: `accounts-test:${crypto.randomBytes(6).toString('hex')}:`,
    background: false,
  })
  const app = await buildApp(runtime.ctx)
  const violations = installResponseContract(app)
  const reported = new Set<ContractViolation>()
  /** Fails the test on an answer the OpenAPI document does not describe. */
  const holdToContract = () => {
    const fresh = violations.filter((violation) => !reported.has(violation))
    for (const violation of fresh) reported.add(violation)
    if (fresh.length > 0) {
      throw new Error(`Answers the API document does not describe:\n${fresh.map((v) => `  ${v.request}: ${v.problem}`).join('\n')}`)
    }
  }
  await app.ready()

  const request: TestApp['request'] = async (method, url, options = {}) => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token) headers.authorization = `Bearer ${options.token}`
    if (options.csrf) headers['x-csrf-token'] = options.csrf
    let payload = options.payload
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json'
      payload = JSON.stringify(options.body)
    }
    const response = await app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
      ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    })
    holdToContract()
    return response
  }

  const createUser: TestApp['createUser'] = async (input = {}) => {
    const email = input.email ?? uniqueEmail(input.role?.toLowerCase() ?? 'client')
    const password = input.password ?? STRONG_PASSWORD
    await ensureAccount(runtime.ctx, {
      email,
      role: input.role ?? 'CLIENT',
      name: input.name ?? 'Test User',
      password,
      reason: 'test fixture',
    })
    const row = await runtime.ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()
    if (input.status && input.status !== 'ACTIVE') {
      await runtime.ctx.db.updateTable('users').set({ status: input.status }).where('id', '=', row.id).execute()
    }
    return { id: row.id, email, password }
  }

  const login: TestApp['login'] = (email, password, remoteAddress) =>
    request('POST', '/api/auth/login', { body: { email, password }, ...(remoteAddress ? { remoteAddress } : {}) })

  return {
    app,
    ctx: runtime.ctx,
    runtime,
    clock,
    config,
    logs,
    request,
    deliverMail: () => runtime.jobWorker.drain(),
    outbox: () => readOutbox(dataDir),
    createUser,
    async signIn(input = {}) {
      const user = await createUser(input)
      const response = await login(user.email, user.password)
      if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.body}`)
      const data = response.json().data
      return { ...user, accessToken: data.accessToken, refreshToken: data.refreshToken, csrfToken: data.csrfToken }
    },
    login,
    async close() {
      await app.close()
      // Answers of requests made around `request` (straight through app.inject) are held to it here.
      try {
        holdToContract()
      } finally {
        await runtime.close()
        await database.close()
        fs.rmSync(dataDir, { recursive: true, force: true })
      }
    },
  }
}

/**
 * The test app of a file or a `describe` block: created before its tests and closed after them,
 * by hooks this registers itself. Call it before the block's own hooks, so that they find the app
 * ready and their clean-up runs before it closes. `env` may be a function, for settings known only
 * once an earlier hook has run (a mailbox's address).
 */
export function useTestApp(env: Record<string, string> | (() => Record<string, string>) = {}, options: { poolSize?: number } = {}): TestApp {
  let current: TestApp | undefined
  beforeAll(async () => {
    current = await createTestApp(typeof env === 'function' ? env() : env, options)
  })
  afterAll(async () => {
    await current?.close()
    current = undefined
  })
  const ready = (): TestApp => {
    if (!current) throw new Error('The test app is used outside the tests of the block that made it.')
    return current
  }
  return new Proxy({} as TestApp, {
    get: (_, key) => Reflect.get(ready(), key),
    set: (_, key, value) => Reflect.set(ready(), key, value),
  })
}
