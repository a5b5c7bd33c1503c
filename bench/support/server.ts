import { type ChildProcess, spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'

/** Helpers shared by the benchmarks: a scratch PostgreSQL database and the real server process. */

export const benchServerUrl = () => process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

export function databaseUrl(base: string, name: string): string {
  const url = new URL(base)
  url.pathname = `/${name}`
  return url.toString()
}

export async function recreateDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: benchServerUrl() })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  return databaseUrl(benchServerUrl(), name)
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: benchServerUrl() })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.end()
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

export interface ServerProcess {
  url: string
  child: ChildProcess
  /** Resident memory of the server process, in MiB (Linux). */
  rssMiB(): number
  stop(): Promise<number | null>
}

/** Starts `src/server/main.ts` in its own process, as `npm start` does, and waits until it listens. */
export async function startServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerProcess> {
  const port = await freePort()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-bench-'))
  const root = path.resolve(import.meta.dirname, '..', '..')
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(root, 'src/server/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      AUTH_SECRET: crypto.randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stderr!.on('data', (chunk) => (output += chunk))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk
      if (output.includes('is listening on')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)))
  })
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    rssMiB() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8')
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
      return Math.round(kb / 1024)
    },
    stop() {
      return new Promise((resolve) => {
        child.once('exit', (code) => {
          fs.rmSync(dataDir, { recursive: true, force: true })
          resolve(code)
        })
        child.kill('SIGTERM')
      })
    },
  }
}

export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
  return `${os.availableParallelism()} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`
}
