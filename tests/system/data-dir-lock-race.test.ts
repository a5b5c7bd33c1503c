import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { call, dataFolders, spawnServer, stopServer, withTimeout } from './server-process'

/**
 * One process per embedded data directory, beyond tests/system/data-dir-lock.test.ts (a second
 * server started after the first): two servers started at the same instant on a new directory,
 * and the command-line account tool run beside a live server.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

describe('the embedded data directory', () => {
  const folder = dataFolders()

  it('goes to exactly one of two servers started at the same instant; the other says why and exits', async () => {
    const dataDir = folder()
    const [a, b] = await Promise.all([spawnServer({ DATA_DIR: dataDir }), spawnServer({ DATA_DIR: dataDir })])
    const outcomes = await Promise.all(
      [a, b].map(({ process: server, ready }) =>
        withTimeout(
          ready.then(
            () => 'listening' as const,
            () => 'refused' as const,
          ),
          90_000,
          () => `neither listening nor exited:\n${server.output()}`,
        ),
      ),
    )
    expect([...outcomes].sort()).toEqual(['listening', 'refused'])
    const [winner, loser] = outcomes[0] === 'listening' ? [a.process, b.process] : [b.process, a.process]
    const { code } = await loser.exited
    expect(code).not.toBe(0)
    expect(loser.output()).toContain('is already using the data directory')
    expect(loser.output()).not.toMatch(/^\s+at /m)

    expect((await call(winner, 'GET', '/api/health')).status).toBe(200)
    expect((await stopServer(winner)).code).toBe(0)
  })

  it('is refused to `npm run user:create` while a server runs on it, and the server keeps serving', async () => {
    const dataDir = folder('prepared')
    const { process: server, ready } = await spawnServer({ DATA_DIR: dataDir })
    await withTimeout(ready, 90_000, () => server.output())

    const cli = spawn(process.execPath, ['--import', 'tsx', 'src/server/cli/create-user.ts', '--email', 'late.comer@example.com', '--role', 'ADMIN'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, RATE_LIMIT: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    cli.stdout.on('data', (chunk) => (output += chunk))
    cli.stderr.on('data', (chunk) => (output += chunk))
    const code = await withTimeout(new Promise<number | null>((resolve) => cli.once('exit', resolve)), 60_000, () => `the command hung:\n${output}`)

    expect(code, output).not.toBe(0)
    expect(output).toContain(`Another process (pid ${server.child.pid}) is already using the data directory`)
    expect(output).not.toContain('Created late.comer@example.com')
    expect((await call(server, 'GET', '/api/health')).status).toBe(200)
    expect((await call(server, 'POST', '/api/auth/login', { email: 'late.comer@example.com', password: 'Whatever-It-Was-1!' })).status).toBe(401)
    expect((await stopServer(server)).code).toBe(0)
  })
})
