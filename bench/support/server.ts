import type { ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { openDatabase } from '~server/db/database'
import { migrateToLatest } from '~server/db/migrate'
import { startServer as startProcess, stopServer } from '../../tests/support/server-process'

/** Helpers shared by the benchmarks: a scratch PostgreSQL database and the real server process. */

export const benchServerUrl = () => process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

export function databaseUrl(base: string, name: string): string {
  const url = new URL(base)
  url.pathname = `/${name}`
  return url.toString()
}

/** Runs statements on one database through a connection of its own. */
export async function query(url: string, ...statements: [text: string, values?: unknown[]][]): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (const [text, values] of statements) await client.query(text, values)
  } finally {
    await client.end()
  }
}

/** An empty database of this name, dropped first if it exists, with the product's migrations run. */
export async function recreateDatabase(name: string): Promise<string> {
  await query(benchServerUrl(), [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`], [`CREATE DATABASE ${name}`])
  const url = databaseUrl(benchServerUrl(), name)
  const handle = await openDatabase({ url })
  await migrateToLatest(handle.db)
  await handle.close()
  return url
}

export async function dropDatabase(name: string): Promise<void> {
  await query(benchServerUrl(), [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])
}

export interface BenchServer {
  url: string
  child: ChildProcess
  /** Resident memory of the server process, in MiB (Linux). */
  rssMiB(): number
  stop(): Promise<number | null>
}

/** Starts `src/server/main.ts` in its own process, as `npm start` does, and waits until it listens. */
export async function startServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-bench-'))
  const server = await startProcess(
    { NODE_ENV: 'development', DATA_DIR: dataDir, AUTH_SECRET: crypto.randomBytes(32).toString('hex'), ...env },
    { inheritEnv: true, nodeArgs },
  )
  return {
    url: server.url,
    child: server.child,
    rssMiB() {
      const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8')
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
      return Math.round(kb / 1024)
    },
    async stop() {
      const { code } = await stopServer(server)
      fs.rmSync(dataDir, { recursive: true, force: true })
      return code
    },
  }
}

export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
  return `${os.availableParallelism()} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`
}

/** The machine's idle (with I/O wait), stolen and total time over all cores since boot, ms (Linux). */
export function machineTime(): { idle: number; steal: number; total: number } {
  const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number)
  const ms = (n: number) => n * 10
  return { idle: ms(ticks[3]! + ticks[4]!), steal: ms(ticks[7]!), total: ms(ticks.reduce((sum, n) => sum + n, 0)) }
}
