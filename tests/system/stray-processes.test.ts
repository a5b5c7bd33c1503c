import { spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../support/server-process'
import { removeDataDir, tempDataDir } from './server-process'

/**
 * No server process outlives the test run that started it, even when that run does none of its
 * clean-up: a run killed outright (SIGKILL, an out-of-memory kill) or a run that exits without
 * stopping what it started. A "test run" here is a small script that starts the real server the
 * way every suite does (tests/support/server-process.ts), prints the server's pid, then dies.
 */
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function untilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true
    await sleep(100)
  }
  return !isAlive(pid)
}

/** Starts a "test run" that starts a server and then ends as `ending` says; resolves the server's pid. */
async function runThatStartsAServer(dataDir: string, ending: 'killed' | 'exits without clean-up') {
  const script = `
    const { startServer } = await import(${JSON.stringify(`${ROOT}tests/support/server-process.ts`)})
    const server = await startServer({ DATA_DIR: ${JSON.stringify(dataDir)} })
    process.stdout.write('server-pid=' + server.child.pid + '\\n')
    ${ending === 'killed' ? 'setInterval(() => {}, 1000)' : 'process.exit(0)'}`
  const run = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const pid = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const found = /server-pid=(\d+)/.exec(output)
      if (found) resolve(Number(found[1]))
    }
    run.stdout.on('data', onData)
    run.stderr.on('data', onData)
    run.once('exit', () => setTimeout(() => reject(new Error(`the run ended before its server started:\n${output}`)), 100))
  })
  return { run, serverPid: pid }
}

describe('servers started by tests', () => {
  it('stop when the test run is killed outright', async () => {
    const dataDir = tempDataDir()
    let serverPid: number | undefined
    try {
      const started = await runThatStartsAServer(dataDir, 'killed')
      serverPid = started.serverPid
      expect(isAlive(serverPid)).toBe(true)
      started.run.kill('SIGKILL')
      expect(await untilGone(serverPid, 20_000)).toBe(true)
    } finally {
      if (serverPid && isAlive(serverPid)) process.kill(serverPid, 'SIGKILL')
      removeDataDir(dataDir)
    }
  })

  it('stop when the test run exits without stopping them', async () => {
    const dataDir = tempDataDir()
    let serverPid: number | undefined
    try {
      serverPid = (await runThatStartsAServer(dataDir, 'exits without clean-up')).serverPid
      expect(await untilGone(serverPid, 20_000)).toBe(true)
    } finally {
      if (serverPid && isAlive(serverPid)) process.kill(serverPid, 'SIGKILL')
      removeDataDir(dataDir)
    }
  })
})
