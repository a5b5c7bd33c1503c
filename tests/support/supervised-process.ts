import { type ChildProcess, spawn } from 'node:child_process'
import net from 'node:net'
import { EXIT_WITH_PARENT, ROOT, withTimeout } from './server-process'

/**
 * A program from outside the project (Apache, PHP's built-in web server running SimpleSAMLphp) that
 * a test runs in the foreground, listening on a loopback port. It runs under a small Node process
 * that stops it on SIGTERM, or when this test run is gone however it ended
 * (tests/support/exit-with-parent.ts), so that it never outlives the test.
 */
const SUPERVISOR = `const program = require('node:child_process').spawn(process.argv[1], process.argv.slice(2), { stdio: 'inherit' })
process.on('SIGTERM', () => {
  program.kill('SIGTERM')
  setTimeout(() => program.kill('SIGKILL'), 5000).unref()
})
program.on('exit', (code) => process.exit(code ?? 0))`

export interface SupervisedProcess {
  /** What the program printed (stdout and stderr), the last 200,000 characters. */
  output(): string
  stop(): Promise<void>
}

export interface SupervisedOptions {
  /** What the program is called in errors ("Apache", "SimpleSAMLphp"). */
  name: string
  command: string
  args: string[]
  env?: NodeJS.ProcessEnv
  /** The loopback port it listens on: started means this port accepts connections. */
  port: number
  /** More to show when it fails to start (its own log files). */
  diagnostics?: () => string
  /** Called when it did not stop within 10 s of SIGTERM, before the supervisor is killed. */
  onStuck?: () => void
}

const OUTPUT_LIMIT = 200_000

/** Starts the program and resolves once its port accepts connections; stops it if it does not. */
export async function startSupervised(options: SupervisedOptions): Promise<SupervisedProcess> {
  let output = ''
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', '--import', EXIT_WITH_PARENT, '-e', SUPERVISOR, options.command, ...options.args], {
    cwd: ROOT,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_LIMIT)
  }
  child.stdout!.on('data', collect)
  child.stderr!.on('data', collect)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  process.once('exit', () => child.kill('SIGTERM'))
  const diagnostics = () => [output, options.diagnostics?.() ?? ''].filter(Boolean).join('\n')

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    await withTimeout(exited, 10_000, () => `${options.name} did not stop`).catch(async () => {
      options.onStuck?.()
      child.kill('SIGKILL')
      await exited
    })
  }
  try {
    await withTimeout(
      (async () => {
        for (;;) {
          if (child.exitCode !== null) throw new Error(`${options.name} exited:\n${diagnostics()}`)
          const listening = await new Promise<boolean>((resolve) => {
            const socket = net.connect(options.port, '127.0.0.1', () => resolve(true)).once('error', () => resolve(false))
            socket.once('connect', () => socket.end())
          })
          if (listening) return
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      })(),
      20_000,
      () => `${options.name} did not start:\n${diagnostics()}`,
    )
  } catch (error) {
    await stop()
    throw error
  }
  return { output: () => output, stop }
}
