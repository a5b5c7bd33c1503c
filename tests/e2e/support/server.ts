import { type ChildProcess, spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { type Mailbox, startMailbox } from './mailbox'
import { ensureWebBuild, root } from './web-build'

/**
 * The real server for browser tests, started as `npm start` starts it (`node --import tsx
 * src/server/main.ts` on the built web app) on a free port, with its own data folder, a real SMTP
 * server catching its mail, throttling off and a known administrator. The database is the
 * embedded one, or a fresh database on the PostgreSQL server named by TEST_DATABASE_URL.
 * Stopping it removes the folder, the database and the mailbox.
 */

export interface RunningServer {
  url: string
  dataDir: string
  admin: { email: string; password: string }
  /** The mail the server sent, as an SMTP server received it. */
  mail: Mailbox
  /** Everything the server printed. */
  output(): string
  stop(): Promise<void>
}

export const E2E_ADMIN = { email: 'e2e-admin@example.com', password: 'Vivid-Kettle-42!' }

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
}

/** A database of its own on TEST_DATABASE_URL's server (the server migrates it), or none. */
async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (!serverUrl) return null
  const name = `accounts_e2e_${crypto.randomBytes(6).toString('hex')}`
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  await run(`CREATE DATABASE ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

export async function startServer(options: { env?: Record<string, string> } = {}): Promise<RunningServer> {
  ensureWebBuild()
  const port = await freePort()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-e2e-'))
  const url = `http://127.0.0.1:${port}`
  const mail = await startMailbox()
  const database = await createPostgresDatabase()
  let output = ''
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: url,
      DATA_DIR: dataDir,
      RATE_LIMIT: 'off',
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: E2E_ADMIN.email,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      DATABASE_URL: database?.url ?? '',
      REDIS_URL: process.env.TEST_REDIS_URL ?? '',
      SMTP_URL: mail.smtpUrl,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    }
    await mail.close()
    await database?.drop()
    fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
  }

  try {
    await waitForHealth(url, exited, () => output)
  } catch (error) {
    await stop()
    throw error
  }

  return { url, dataDir, admin: E2E_ADMIN, mail, output: () => output, stop }
}

async function waitForHealth(url: string, exited: Promise<number | null>, output: () => string): Promise<void> {
  const deadline = Date.now() + 90_000
  let gone = false
  void exited.then(() => (gone = true))
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the server exited during start-up:\n${output()}`)
    try {
      const response = await fetch(`${url}/api/health`)
      if (response.ok) return
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the server did not answer within 90 s:\n${output()}`)
}
