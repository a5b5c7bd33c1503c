import { type ChildProcess, spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { SETTING_NAMES } from '~server/config/env'

/**
 * The real server as `npm start` runs it (`node --import tsx src/server/main.ts`), in a process of
 * its own, with its output kept for the caller to read: used by the whole-process tests
 * (tests/system), the browser tests (tests/e2e) and the benchmarks (bench/).
 */

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const READY = /is listening on port \d+/

export interface SpawnOptions {
  /**
   * Pass this process's environment on (benchmarks, browser tests), without the product's own
   * settings: the caller gives those it means, and an APP_NAME or ACCESS_TOKEN_TTL left in the shell
   * that runs `npm test` changes nothing. By default only PATH and HOME.
   */
  inheritEnv?: boolean
  /** Options for node itself, before the script (e.g. --cpu-prof). */
  nodeArgs?: string[]
  /** The source tree whose server runs (benchmarks comparing two commits); by default this one. */
  root?: string
  /** What runs, from the root: by default the server itself; `scripts/start.mjs` is `npm start` (the web app built first if need be). */
  script?: string
}

export interface ServerProcess {
  child: ChildProcess
  url: string
  port: number
  /** Everything the process printed so far, stdout and stderr together. */
  output(): string
  /** Resolves when the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Where the process is stuck, from Node.js's diagnostic report (see `whereItWaits`). */
  whereItWaits(): Promise<string>
}

/**
 * A server that does not start in time is asked for Node.js's diagnostic report (by REPORT_SIGNAL,
 * which nothing else uses: its default action is to do nothing), so that a rare hang says where it
 * is: the JavaScript stack, the native stack and what the event loop waits for. A process whose
 * thread never returns to its event loop writes no report, which says that much.
 */
const REPORT_SIGNAL = 'SIGWINCH'

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

const running = new Set<ChildProcess>()
/** Loaded into each process a test starts, so that it ends with the test run (exit-with-parent.ts). */
export const EXIT_WITH_PARENT = fileURLToPath(new URL('./exit-with-parent.ts', import.meta.url))

// A test run that ends without its clean-up (a failed hook, a timeout) still takes its servers along.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

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

/** An environment without the variables the server reads its configuration from. */
export function withoutSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !SETTING_NAMES.includes(name)))
}

/** Starts the server process; `ready` resolves once it listens, or rejects when it exits first. */
export async function spawnServer(env: Record<string, string>, options: SpawnOptions = {}): Promise<{ process: ServerProcess; ready: Promise<void> }> {
  const port = Number(env.PORT ?? (await freePort()))
  let output = ''
  const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-report-'))
  const reportArgs = ['--report-on-signal', `--report-signal=${REPORT_SIGNAL}`, `--report-directory=${reportDir}`, '--report-compact']
  const child = spawn(
    process.execPath,
    [...reportArgs, ...(options.nodeArgs ?? []), '--import', 'tsx', '--import', EXIT_WITH_PARENT, options.script ?? 'src/server/main.ts'],
    {
      cwd: options.root ?? ROOT,
      env: {
        ...(options.inheritEnv ? withoutSettings(process.env) : { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir() }),
        PORT: String(port),
        HOST: '127.0.0.1',
        RATE_LIMIT: 'off',
        LOG_LEVEL: 'warn',
        ...env,
      },
      // stdin: the pipe whose end tells the server that this test run is gone (exit-with-parent.ts).
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  running.add(child)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child)
      fs.rmSync(reportDir, { recursive: true, force: true })
      resolve({ code, signal })
    }),
  )
  const whereItWaits = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return 'it has exited'
    child.kill(REPORT_SIGNAL)
    for (let waited = 0; waited < 5_000; waited += 100) {
      const [file] = fs.existsSync(reportDir) ? fs.readdirSync(reportDir) : []
      if (file) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        try {
          return summariseReport(JSON.parse(fs.readFileSync(path.join(reportDir, file), 'utf8')) as DiagnosticReport)
        } catch (error) {
          return `its diagnostic report could not be read: ${String(error)}`
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return 'it wrote no diagnostic report within 5 s: its thread has not returned to its event loop (busy, or blocked in a call)'
  }
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
  return { process: { child, url: `http://127.0.0.1:${port}`, port, output: () => output, exited, whereItWaits }, ready }
}

/**
 * Whether a server `spawnServer` started came to listen or exited first. After `ms` with neither,
 * an error with its output and where it waits (its diagnostic report), and `more()` besides.
 */
export async function startOutcome(
  server: ServerProcess,
  ready: Promise<void>,
  ms: number,
  more: () => Promise<string> = async () => '',
): Promise<'listening' | 'exited'> {
  let timer: NodeJS.Timeout | undefined
  const outcome = await Promise.race([
    ready.then(
      () => 'listening' as const,
      () => 'exited' as const,
    ),
    new Promise<'waiting'>((resolve) => (timer = setTimeout(() => resolve('waiting'), ms))),
  ]).finally(() => clearTimeout(timer))
  if (outcome !== 'waiting') return outcome
  throw new Error(`the server neither listened nor exited within ${ms / 1000} s:\n${server.output()}\nwhere it waits:\n${await server.whereItWaits()}${await more()}`)
}

interface DiagnosticReport {
  javascriptStack?: { message?: string; stack?: string[] }
  nativeStack?: { symbol?: string }[]
  libuv?: { type?: string; is_active?: boolean }[]
}

function summariseReport(report: DiagnosticReport): string {
  const handles = new Map<string, number>()
  for (const handle of report.libuv ?? []) if (handle.is_active) handles.set(handle.type ?? '?', (handles.get(handle.type ?? '?') ?? 0) + 1)
  return [
    `JavaScript: ${report.javascriptStack?.message ?? ''}`,
    ...(report.javascriptStack?.stack ?? []).slice(0, 15).map((line) => `  ${line}`),
    'native:',
    ...(report.nativeStack ?? []).slice(0, 15).map((frame) => `  ${frame.symbol ?? '?'}`),
    `the event loop's active handles: ${[...handles].map(([type, count]) => `${type} ${count}`).join(', ') || 'none'}`,
  ].join('\n')
}

/** What one of the package's commands printed, stdout and stderr together, and its exit code. */
export interface CommandRun {
  code: number | null
  output: string
}

/**
 * Runs one of the package's commands (`src/server/cli/seed.ts` for `npm run db:seed`, …) as the
 * command line does (node and tsx, no npm), with only these settings. With `input`, that is its
 * standard input, whole (as `printf … | npm run …` gives it), instead of the pipe whose end tells it
 * that this test run is gone: a command that reads its input is over soon after.
 */
export function runCommand(script: string, env: Record<string, string>, args: string[] = [], options: { input?: string } = {}): Promise<CommandRun> {
  const watchParent = options.input === undefined ? ['--import', EXIT_WITH_PARENT] : []
  const child = spawn(process.execPath, ['--import', 'tsx', ...watchParent, script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
    // stdin: the pipe whose end tells the command that this test run is gone, or its input.
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  if (options.input !== undefined) child.stdin.end(options.input)
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const done = new Promise<CommandRun>((resolve) => child.once('exit', (code) => resolve({ code, output })))
  return withTimeout(done, 120_000, () => `${script} did not finish:\n${output}`).finally(() => child.kill('SIGKILL'))
}

/** Starts the server and waits until it listens. */
export async function startServer(env: Record<string, string>, options: SpawnOptions = {}): Promise<ServerProcess> {
  const { process: server, ready } = await spawnServer(env, options)
  try {
    await withTimeout(ready, 90_000, () => 'timeout')
  } catch (error) {
    if ((error as Error).message !== 'timeout') throw error
    throw new Error(`server did not start in 90 s:\n${server.output()}\nwhere it waits:\n${await server.whereItWaits()}`)
  }
  return server
}

/**
 * What a process said, as text: in a JSON log (any start whose output is not a terminal, as every
 * test's is) each line's message, and any other line as it is.
 */
export function said(output: string): string {
  return output
    .split('\n')
    .map((line) => {
      if (!line.startsWith('{')) return line
      try {
        return String((JSON.parse(line) as { msg?: unknown }).msg ?? line)
      } catch {
        return line
      }
    })
    .join('\n')
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

/** A fresh database of a random name on a PostgreSQL server, dropped by `drop()`. */
export async function createPostgresDatabase(serverUrl: string, prefix = 'accounts_test'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${crypto.randomBytes(5).toString('hex')}`
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
