import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  call,
  killStrayServers,
  passwordFileOf,
  printedAdmin,
  removeDataDir,
  spawnServer,
  startServer,
  stopServer,
  tempDataDir,
  emptyDataDir,
  freePort,
  withTimeout,
} from './server-process'

const signIn = async (server: Parameters<typeof call>[0], credentials: { email: string; password: string }) => {
  const answer = await call(server, 'POST', '/api/auth/login', credentials)
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body.data.user as { email: string; role: string; status: string; emailVerified: boolean }
}

describe('the first administrator', () => {
  const dirs: string[] = []
  const dataDir = (fresh = false) => {
    const dir = fresh ? emptyDataDir() : tempDataDir()
    dirs.push(dir)
    return dir
  }
  afterEach(async () => {
    await killStrayServers()
    for (const dir of dirs.splice(0)) removeDataDir(dir)
  })

  it('is created on the first start with a generated password, kept out of the log in a file only its user may read, that works', async () => {
    const dir = dataDir(true)
    const first = await startServer({ DATA_DIR: dir })
    const admin = printedAdmin(first.output())
    expect(admin).not.toBeNull()
    expect(admin!.email).toBe('admin@localhost')
    expect(admin!.password.length).toBeGreaterThanOrEqual(16)
    // Not a terminal: the log (kept for years by whatever collects it) says where, never what.
    expect(first.output()).not.toContain(admin!.password)
    const file = passwordFileOf(first.output())!
    expect(file).toBe(path.join(path.resolve(dir), 'secrets', 'first-admin-password'))
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700)
    expect(await signIn(first, admin!)).toMatchObject({ email: 'admin@localhost', role: 'ADMIN', status: 'ACTIVE', emailVerified: true })
    expect((await stopServer(first)).code).toBe(0)

    const second = await startServer({ DATA_DIR: dir })
    expect(passwordFileOf(second.output())).toBeUndefined()
    expect(second.output()).not.toContain(admin!.password)
    expect(second.output()).not.toMatch(/password:/i)
    expect(await signIn(second, admin!)).toMatchObject({ role: 'ADMIN' })
    expect((await stopServer(second)).code).toBe(0)
  })

  it('is the account of ADMIN_EMAIL and ADMIN_PASSWORD when they are set, and no password is generated', async () => {
    const dir = dataDir()
    const credentials = { email: 'Chief.Admin@Example.com', password: 'Operator-Chosen-2026!' }
    const env = { DATA_DIR: dir, ADMIN_EMAIL: credentials.email, ADMIN_PASSWORD: credentials.password }
    const first = await startServer(env)
    expect(printedAdmin(first.output())).toBeNull()
    expect(first.output()).not.toContain(credentials.password)
    expect(await signIn(first, credentials)).toMatchObject({
      email: 'chief.admin@example.com',
      role: 'ADMIN',
      status: 'ACTIVE',
      emailVerified: true,
    })
    const generated = await call(first, 'POST', '/api/auth/login', { email: 'admin@localhost', password: 'anything-At-all-1!' })
    expect(generated.status).toBe(401)
    expect((await stopServer(first)).code).toBe(0)

    // Starting again with the same settings changes nothing and still works.
    const second = await startServer(env)
    expect(await signIn(second, credentials)).toMatchObject({ role: 'ADMIN' })
    expect((await stopServer(second)).code).toBe(0)
  })

  it('is not created by a start that cannot listen (the port taken), so the next start still prints it', async () => {
    const dir = dataDir()
    const port = await freePort()
    const squatter = net.createServer((socket) => socket.end())
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve))
    try {
      const { process: refused, ready } = await spawnServer({ DATA_DIR: dir, PORT: String(port) })
      await expect(ready).rejects.toThrow(/before listening/)
      const { code } = await withTimeout(refused.exited, 30_000, () => 'the server neither started nor exited')
      expect(code).toBe(1)
      expect(refused.output()).toContain(`Cannot start: Another program is already listening on port ${port} on 127.0.0.1.`)
      expect(refused.output()).toContain(`Stop it, or give this server another port, for example PORT=${port + 1}.`)
      expect(refused.output()).not.toMatch(/^\s+at /m) // a message, not a stack trace
      expect(printedAdmin(refused.output())).toBeNull()
    } finally {
      await new Promise((resolve) => squatter.close(resolve))
    }

    const next = await startServer({ DATA_DIR: dir, PORT: String(port) })
    const admin = printedAdmin(next.output())
    expect(admin).not.toBeNull()
    expect(await signIn(next, admin!)).toMatchObject({ email: 'admin@localhost', role: 'ADMIN' })
    expect((await stopServer(next)).code).toBe(0)
  })
})
