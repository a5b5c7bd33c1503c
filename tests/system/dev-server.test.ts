import { spawn } from 'node:child_process'
import net from 'node:net'
import os from 'node:os'
import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { EXIT_WITH_PARENT, ROOT, said } from '../support/server-process'
import { dataFolders, withTimeout } from './server-process'

/**
 * `npm run dev`: the API server and Vite's dev server. Every e-mailed link, the passkeys' origin and
 * the provider's issuer come from APP_URL, so APP_URL must name the port Vite serves on, also when
 * 5173 is taken (another checkout's `npm run dev`): Vite must not move to another port on its own.
 */
const folder = dataFolders()

/** Holds 127.0.0.1:5173 as another program would; null when something already does. */
async function hold5173(): Promise<net.Server | null> {
  const server = net.createServer()
  return new Promise((resolve) => {
    server.once('error', () => resolve(null))
    server.listen(5173, '127.0.0.1', () => resolve(server))
  })
}

describe('npm run dev', () => {
  it('opens on the port Vite serves on, the next free one when 5173 is taken, and its links and API use that address', async () => {
    const blocker = await hold5173()
    const dev = spawn(process.execPath, ['--import', 'tsx', '--import', EXIT_WITH_PARENT, 'scripts/dev.mjs'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), DATA_DIR: folder('prepared'), NO_COLOR: '1' },
      // stdin: the pipe whose end stops it (and so its servers) if this test run is killed.
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // its own process group: the servers it starts are stopped with it here
    })
    let output = ''
    const exited = new Promise<void>((resolve) => dev.once('exit', () => resolve()))
    try {
      const addresses = new Promise<{ vite: string; open: string }>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output += stripVTControlCharacters(chunk.toString())
          const vite = /Local:\s+(http:\/\/localhost:\d+)/.exec(output)?.[1]
          // Its output is not a terminal: the server's log is JSON lines, read here for what they say.
          const open = /is listening on port \d+ \(this machine only\)\. Open (\S+)/.exec(said(output))?.[1]
          if (vite && open) resolve({ vite, open })
        }
        dev.stdout.on('data', onData)
        dev.stderr.on('data', onData)
        void exited.then(() => reject(new Error(`npm run dev exited:\n${output}`)))
      })
      const { vite, open } = await withTimeout(addresses, 90_000, () => `npm run dev did not come up:\n${output}`)
      expect(vite).not.toBe('http://localhost:5173')
      expect(open).toBe(vite)
      const health = await fetch(`${vite}/api/health`)
      expect(health.status).toBe(200)
      expect(((await health.json()) as { data: { status: string } }).data.status).toBe('ok')
    } finally {
      if (dev.exitCode === null) process.kill(-dev.pid!, 'SIGTERM')
      await withTimeout(exited, 15_000, () => 'npm run dev did not stop').catch(() => process.kill(-dev.pid!, 'SIGKILL'))
      blocker?.close()
    }
  })
})
