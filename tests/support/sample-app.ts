import { type ChildProcess, spawn } from 'node:child_process'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { freePort, ROOT, withTimeout } from './server-process'

/**
 * The sample relying party of the docs (docs/examples/sample-app.mjs), run as a newcomer runs it
 * (`node docs/examples/sample-app.mjs`), in a process of its own that ends with the test run
 * (exit-with-parent.ts) and is killed by `stop()`.
 */
export interface SampleApp {
  url: string
  port: number
  child: ChildProcess
  output(): string
  /** Resolves once the app has printed a line matching this. */
  printed(pattern: RegExp, ms?: number): Promise<void>
  stop(): Promise<void>
}

const EXIT_WITH_PARENT = fileURLToPath(new URL('./exit-with-parent.ts', import.meta.url))
const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** The port the sample app will listen on, chosen before the application is registered (its addresses name it). */
export const samplePort = freePort

export async function startSampleApp(env: { ISSUER: string; CLIENT_ID: string; CLIENT_SECRET?: string; PORT: number }): Promise<SampleApp> {
  let output = ''
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', EXIT_WITH_PARENT, 'docs/examples/sample-app.mjs'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      ISSUER: env.ISSUER,
      CLIENT_ID: env.CLIENT_ID,
      ...(env.CLIENT_SECRET ? { CLIENT_SECRET: env.CLIENT_SECRET } : {}),
      PORT: String(env.PORT),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  running.add(child)
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child)
      resolve()
    }),
  )
  const listeners = new Set<() => void>()
  const onData = (chunk: Buffer) => {
    output += chunk.toString()
    for (const listener of listeners) listener()
  }
  child.stdout!.on('data', onData)
  child.stderr!.on('data', onData)

  const printed = (pattern: RegExp, ms = 15_000) =>
    withTimeout(
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(output)) {
            listeners.delete(check)
            resolve()
          } else if (child.exitCode !== null || child.signalCode !== null) {
            listeners.delete(check)
            reject(new Error(`the sample app exited:\n${output}`))
          }
        }
        listeners.add(check)
        void exited.then(check)
        check()
      }),
      ms,
      () => `the sample app did not print ${pattern}:\n${output}`,
    )

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    await withTimeout(exited, 5_000, () => 'the sample app did not stop').catch(() => {
      child.kill('SIGKILL')
      return exited
    })
  }

  try {
    await printed(/Sample app listening/, 30_000)
  } catch (error) {
    await stop()
    throw error
  }
  return { url: `http://localhost:${env.PORT}`, port: env.PORT, child, output: () => output, printed, stop }
}
