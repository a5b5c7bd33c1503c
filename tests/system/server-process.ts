import { type ChildProcess, spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import pg from 'pg'

/**
 * The real server as `npm start` runs it (`node --import tsx src/server/main.ts`), in a process of
 * its own, with its output kept for the test to read.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const READY = /Accounts is listening on (http:\/\/\S+)/

/**
 * The databases a whole-process test runs on: always the embedded one, and the PostgreSQL server
 * of TEST_DATABASE_URL when it is set.
 */
export const STORES = [
  { store: 'the embedded database (PGlite)', postgresUrl: undefined as string | undefined },
  ...(process.env.TEST_DATABASE_URL ? [{ store: 'PostgreSQL', postgresUrl: process.env.TEST_DATABASE_URL }] : []),
]

export interface ServerProcess {
  child: ChildProcess
  url: string
  port: number
  /** Everything the process printed so far, stdout and stderr together. */
  output(): string
  /** Resolves when the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-system-'))
}

const running = new Set<ChildProcess>()

/** Kills (SIGKILL) every server process a test started and left running, e.g. after a failure. */
export async function killStrayServers(): Promise<void> {
  const stray = [...running]
  await Promise.all(
    stray.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('exit', () => resolve())
          child.kill('SIGKILL')
        }),
    ),
  )
}

/** Removes a data directory (retrying while a dying process lets go of it). */
export function removeDataDir(dataDir: string): void {
  fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
}

/** Starts the server process; `ready` resolves once it listens, or rejects when it exits first. */
export async function spawnServer(env: Record<string, string>): Promise<{ process: ServerProcess; ready: Promise<void> }> {
  const port = Number(env.PORT ?? (await freePort()))
  let output = ''
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT: 'off',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child)
      resolve({ code, signal })
    }),
  )
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (READY.test(output)) resolve()
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    void exited.then(({ code, signal }) => reject(new Error(`server exited (${code ?? signal}) before listening:\n${output}`)))
  })
  ready.catch(() => {})
  return { process: { child, url: `http://127.0.0.1:${port}`, port, output: () => output, exited }, ready }
}

/** Starts the server and waits until it listens. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const { process: server, ready } = await spawnServer(env)
  await withTimeout(ready, 90_000, () => `server did not start:\n${server.output()}`)
  return server
}

/** Sends a signal and waits for the exit; SIGKILLs it if it lingers past the timeout. */
export async function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000) {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return server.exited
  server.child.kill(signal)
  try {
    return await withTimeout(server.exited, timeoutMs, () => `server did not exit after ${signal}`)
  } catch (error) {
    server.child.kill('SIGKILL')
    throw error
  }
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message())), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

export interface JsonAnswer {
  status: number
  body: any
  headers: Headers
}

export async function call(server: ServerProcess, method: string, url: string, body?: unknown, token?: string): Promise<JsonAnswer> {
  const response = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body: parsed, headers: response.headers }
}

/** The first administrator's credentials, as printed on the first start. */
export function printedAdmin(output: string): { email: string; password: string } | null {
  const email = output.match(/^\s*email:\s+(\S+)$/m)?.[1]
  const password = output.match(/^\s*password:\s+(\S+)$/m)?.[1]
  return email && password ? { email, password } : null
}

/** A fresh database on the PostgreSQL server of TEST_DATABASE_URL, dropped by `drop()`. */
export async function createPostgresDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `accounts_system_${crypto.randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: serverUrl })
      await dropper.connect()
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await dropper.end()
    },
  }
}

/**
 * Reads tables straight from the database the server used (with the server stopped, for the
 * embedded one): what is really stored, not what an API chooses to show.
 */
export async function queryStore<T>(store: { dataDir: string; databaseUrl?: string }, sql: string): Promise<T[]> {
  if (store.databaseUrl) {
    const client = new pg.Client({ connectionString: store.databaseUrl })
    await client.connect()
    try {
      return (await client.query(sql)).rows as T[]
    } finally {
      await client.end()
    }
  }
  const lite = await PGlite.create(path.join(store.dataDir, 'pgdata'), { extensions: { pg_trgm } })
  try {
    return (await lite.query<T>(sql)).rows
  } finally {
    await lite.close()
  }
}
