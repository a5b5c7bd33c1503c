import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { call, emptyDataDir, killStrayServers, passwordFileOf, printedAdmin, removeDataDir, spawnServer, startServer, stopServer, withTimeout } from './server-process'

/**
 * One log format per destination (decision 0212): `npm start` (scripts/start.mjs, as the systemd
 * unit runs it) whose output is not a terminal writes JSON lines only, every one of them, from the
 * start-up lines and the first administrator's to the warnings, requests, a Node.js warning and
 * the shutdown; asked for a readable log, it writes no JSON line at all. A log collector reading
 * JSON otherwise met "Accounts is listening on port 3000…" among Fastify's JSON lines.
 */

/** A warning Node.js itself prints, at the shutdown: written as the log's format says, by the product's handler. */
const NODE_WARNING = `data:text/javascript,process.once('SIGTERM', () => process.emitWarning('a warning of Node.js at shutdown'))`

const dirs: string[] = []
afterEach(async () => {
  await killStrayServers()
  for (const dir of dirs.splice(0)) removeDataDir(dir)
})

/** A first start as `npm start` does it, a request, a refused sign-in, then SIGTERM: everything it wrote, line by line. */
async function firstStartsOutput(env: Record<string, string>) {
  const dataDir = emptyDataDir()
  dirs.push(dataDir)
  const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env }, { script: 'scripts/start.mjs', nodeArgs: ['--import', NODE_WARNING] })
  const admin = printedAdmin(server.output())
  expect((await call(server, 'GET', '/api/health/ready')).status).toBe(200)
  expect((await call(server, 'POST', '/api/auth/login', { email: 'nobody@example.com', password: 'Wrong-Password-1!' })).status).toBe(401)
  const password = 'Log-Format-2026!'
  expect((await call(server, 'POST', '/api/auth/register', { name: 'New Comer', email: 'newcomer@example.com', password, confirmPassword: password })).status).toBe(201)
  // The verification e-mail, written to the outbox (no SMTP_URL), is said in the log's format.
  const mailSaid = async () => {
    while (!/e-mail written to the outbox|Mail to newcomer@example\.com/.test(server.output())) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await withTimeout(mailSaid(), 30_000, () => `the e-mail was not said:\n${server.output()}`)
  expect((await stopServer(server)).code).toBe(0)
  const lines = server
    .output()
    .split('\n')
    .filter((line) => line.trim() !== '')
  return { lines, output: server.output(), admin }
}

function parsed(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

describe('the log of a start whose output is not a terminal', () => {
  it('is JSON lines, every one: start-up, the first administrator (the password kept out), warnings, requests, shutdown', async () => {
    const { lines, output, admin } = await firstStartsOutput({ RATE_LIMIT: 'off' })
    const entries = lines.map((line) => ({ line, entry: parsed(line) }))
    expect(
      entries.filter(({ entry }) => !entry).map(({ line }) => line),
      'lines that are not JSON objects',
    ).toEqual([])
    const messages = entries.map(({ entry }) => entry!)
    for (const entry of messages) {
      expect(entry, JSON.stringify(entry)).toMatchObject({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) })
    }
    const said = (pattern: RegExp) => messages.filter((entry) => pattern.test(entry.msg as string))

    const [listening] = said(/^Accounts is listening on port \d+ \(this machine only\)\. Open http:\/\/localhost:\d+$/)
    expect(listening).toMatchObject({
      level: 30,
      port: expect.any(Number),
      mail: expect.stringMatching(/^outbox in /),
      database: expect.stringMatching(/^embedded PostgreSQL in /),
      outboxPage: expect.stringMatching(/^http:\/\/localhost:\d+\/dev\/outbox$/),
    })
    const [created] = said(/^First administrator created: admin@localhost\. Its password is in /)
    expect(created).toMatchObject({ level: 30, email: 'admin@localhost', passwordFile: passwordFileOf(output) })
    expect(admin).not.toBeNull()
    expect(output).not.toContain(admin!.password)
    expect(fs.readFileSync(created!.passwordFile as string, 'utf8')).toContain(`password: ${admin!.password}`)

    expect(said(/^RATE_LIMIT=off: throttling is DISABLED/)).toMatchObject([{ level: 40 }])
    expect(said(/^a warning of Node\.js at shutdown$/)).toMatchObject([{ level: 40, warning: 'Warning' }])
    expect(said(/^request completed$/).map((entry) => (entry.res as { statusCode: number }).statusCode)).toEqual(expect.arrayContaining([200, 401]))
    expect(said(/^shutting down$/)).toHaveLength(1)
    // Where the e-mail is, not its link: the link's one-time token stays out of a kept log.
    const [mail] = said(/^e-mail written to the outbox/)
    expect(fs.existsSync(mail!.file as string)).toBe(true)
    expect(output).not.toContain('verify-email?token=')
  })

  it('says why a start cannot start in a JSON line too', async () => {
    const dataDir = emptyDataDir()
    dirs.push(dataDir)
    const { process: refused, ready } = await spawnServer({ DATA_DIR: dataDir, ADMIN_EMAIL: 'ops@example.com' }, { script: 'scripts/start.mjs' })
    await expect(ready).rejects.toThrow(/before listening/)
    expect((await withTimeout(refused.exited, 60_000, () => refused.output())).code).toBe(1)
    const lines = refused
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '')
    expect(lines.map(parsed)).toEqual([
      expect.objectContaining({
        level: 60,
        msg: 'Cannot start: ADMIN_EMAIL and ADMIN_PASSWORD go together, and only ADMIN_EMAIL is set. Set both, or neither (then the first start creates admin@localhost with a generated password, and says where it is).',
      }),
    ])
  })
})

describe('a readable log (LOG_FORMAT=readable)', () => {
  it('holds no JSON line, and gives the first administrator’s password in a file when it is not a terminal', async () => {
    const { lines, output, admin } = await firstStartsOutput({ RATE_LIMIT: 'off', LOG_FORMAT: 'readable' })
    expect(lines.filter((line) => parsed(line.trim()) !== null || line.trimStart().startsWith('{'))).toEqual([])
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Accounts is listening on port \d+ \(this machine only\)\. Open http:\/\/localhost:\d+$/),
        expect.stringMatching(/^First administrator created: admin@localhost\. Its password is in \/.+, which only this user may read/),
        expect.stringMatching(/WARN +RATE_LIMIT=off: throttling is DISABLED/),
        expect.stringMatching(/^\(node:\d+\) Warning: a warning of Node\.js at shutdown$/),
        expect.stringMatching(/ POST \/api\/auth\/login 401 /),
      ]),
    )
    expect(output).not.toContain(admin!.password)
  })
})
