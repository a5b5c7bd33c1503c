import { type ChildProcess, fork } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { openDatabase, probeDatabase } from '~server/db/database'
import { migrateToLatest } from '~server/db/migrate'
import { freePort, startServer as startProcess, stopServer } from '../../tests/support/server-process'

/** Helpers shared by the benchmarks: a scratch PostgreSQL database and the real server process. */

export const benchServerUrl = () => process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * What keeps the benchmarks from using the PostgreSQL server of BENCH_DATABASE_URL, in a sentence
 * (a machine without PostgreSQL, a wrong address or user): null when it answers. Its `postgres`
 * database is asked, since the database the setting names may be one a benchmark creates (lists).
 */
export async function benchDatabaseProblem(): Promise<string | null> {
  const url = databaseUrl(benchServerUrl(), 'postgres')
  const handle = await openDatabase({ url, poolSize: 1 })
  try {
    await probeDatabase(handle.db, url, 'BENCH_DATABASE_URL')
    return null
  } catch (error) {
    return (error as Error).message
  } finally {
    await handle.close()
  }
}

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
export async function startServer(env: Record<string, string>, nodeArgs: string[] = [], root?: string): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-bench-'))
  const server = await startProcess(
    { NODE_ENV: 'development', DATA_DIR: dataDir, AUTH_SECRET: crypto.randomBytes(32).toString('hex'), ...env },
    { inheritEnv: true, nodeArgs, root },
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

/** User + system CPU time of one process so far, ms (Linux, clock ticks of 10 ms); 0 once it has ended. */
export function processCpuMs(pid: number): number {
  try {
    // Fields 14 and 15 of /proc/PID/stat, counted after the parenthesised name.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return 0
  }
}

/** The machine's idle (with I/O wait), stolen and total time over all cores since boot, ms (Linux). */
export function machineTime(): { idle: number; steal: number; total: number } {
  const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number)
  const ms = (n: number) => n * 10
  return { idle: ms(ticks[3]! + ticks[4]!), steal: ms(ticks[7]!), total: ms(ticks.reduce((sum, n) => sum + n, 0)) }
}

/** A TypeScript file of bench/support in a child process with an IPC channel. */
export function forkSupport(file: string, env: Record<string, string> = {}): ChildProcess {
  return fork(new URL(`./${file}`, import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], env: { ...process.env, ...env } })
}

export const nextMessage = <T>(child: ChildProcess) => new Promise<T>((resolve) => child.once('message', (message) => resolve(message as T)))

/** A bare server of bench/support listening on a port of its own. */
export interface BareServer {
  url: string
  pid: number
  stop(): void
}

/**
 * A bare server of bench/support (a file that listens on PORT and sends a message once it does),
 * beside the real one: what this machine allows a minimal server, told apart from what the product costs.
 */
export async function startBareServer(file: string, env: Record<string, string> = {}): Promise<BareServer> {
  const port = await freePort()
  const child = forkSupport(file, { PORT: String(port), ...env })
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve())
    child.once('exit', (code) => reject(new Error(`bench/support/${file} ended (${code}) before it listened`)))
  })
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill() }
}

/**
 * CPU time, ms since boot, of the kernel's DAMON threads (`kdamond.N`, Linux's data access monitor,
 * which a host may run to find memory it can reclaim), or undefined where none runs. On a virtual
 * machine whose page tables the hypervisor shadows, its sampling stalls each process in proportion
 * to the memory it keeps using (docs/benchmarks.md).
 */
function memoryMonitorTime(): number | undefined {
  let ms: number | undefined
  for (const pid of fs.existsSync('/proc') ? fs.readdirSync('/proc') : []) {
    if (!/^\d+$/.test(pid)) continue
    let name: string
    try {
      name = fs.readFileSync(`/proc/${pid}/comm`, 'utf8')
    } catch {
      continue // the process ended
    }
    if (name.startsWith('kdamond')) ms = (ms ?? 0) + processCpuMs(Number(pid))
  }
  return ms
}

/**
 * Starts measuring what the kernel's memory monitor takes: the function returned gives its CPU in ms
 * a second since then, or undefined where it does not run (or stopped meanwhile).
 */
export function memoryMonitorMeter(): () => number | undefined {
  const before = memoryMonitorTime()
  const began = performance.now()
  return () => {
    const after = memoryMonitorTime()
    return before === undefined || after === undefined ? undefined : ((after - before) * 1000) / (performance.now() - began)
  }
}

/** A memory monitor reading for a development aid's output. */
export const memoryMonitorText = (msPerSecond: number | undefined) => (msPerSecond === undefined ? 'not running' : `${msPerSecond.toFixed(1)} ms of CPU a second`)
