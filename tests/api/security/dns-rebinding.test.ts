import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '~server/app'
import { ConfigError, loadConfig } from '~server/config/env'
import { createTestApp, type SignedIn, useTestApp } from '../../support/test-app'
import { forgotPassword, mailTo } from '../auth/helpers'
import { countWhere } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'

/**
 * DNS rebinding (decision 0305). A page the user opens at
 * http://rebind.attacker.example:PORT makes its name resolve to 127.0.0.1: its scripts then reach
 * this server as same-origin, and the one thing they cannot change is the Host header, which
 * stays the attacker's name. Before the Host check, such a page read /dev/outbox (reset links in
 * it), asked for a reset and took over any account.
 *
 * Raw requests over real TCP, so that the Host header is exactly what is written here (Fastify's
 * inject would fill one in). The outbox page, the API, the web app's pages and files, unknown
 * paths and CORS preflights: every one is a 421 envelope for a foreign Host, before anything runs;
 * APP_URL's host and the loopback names, on any port, are served. The browser's side of the same
 * attack is tests/e2e/dns-rebinding.test.ts.
 */

interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

/** One request over its own connection; `host` null sends no Host header at all (HTTP/1.0). */
function rawRequest(port: number, method: string, target: string, host: string | null, extra: Record<string, string> = {}, body = ''): Promise<RawAnswer> {
  const version = host === null ? 'HTTP/1.0' : 'HTTP/1.1'
  const lines = [`${method} ${target} ${version}`, ...(host === null ? [] : [`Host: ${host}`]), 'Connection: close']
  for (const [name, value] of Object.entries(extra)) lines.push(`${name}: ${value}`)
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`)
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`))
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      const [statusLine = '', ...headerLines] = text.slice(0, split).split('\r\n')
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
      let rest = text.slice(split + 4)
      if (headers['transfer-encoding'] === 'chunked') rest = dechunk(rest)
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest })
    })
  })
}

function dechunk(text: string): string {
  let out = ''
  let rest = text
  for (;;) {
    const end = rest.indexOf('\r\n')
    const size = parseInt(rest.slice(0, end), 16)
    if (!size) return out
    out += rest.slice(end + 2, end + 2 + size)
    rest = rest.slice(end + 2 + size + 2)
  }
}

function expectRefused(answer: RawAnswer, label: string) {
  expect(answer.status, `${label}: ${answer.body.slice(0, 120)}`).toBe(421)
  expect(answer.headers['content-type'], label).toMatch(/^application\/json/)
  expect(answer.headers['cache-control'], label).toBe('no-store')
  expect(answer.headers['content-security-policy'], label).toContain("frame-ancestors 'none'")
  expect(answer.headers['access-control-allow-origin'], label).toBeUndefined()
  expect(JSON.parse(answer.body), label).toEqual({
    success: false,
    message: 'This server does not answer for that host name',
    code: 'MISDIRECTED_REQUEST',
    requestId: answer.headers['x-request-id'],
  })
}

const t = useTestApp()
let app: FastifyInstance
let port: number
let webDir: string
let user: SignedIn

beforeAll(async () => {
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-web-'))
  fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><html><head><title>Accounts</title></head><body><div id="root"></div></body></html>')
  fs.mkdirSync(path.join(webDir, 'assets'))
  fs.writeFileSync(path.join(webDir, 'assets', 'app-1234.js'), 'console.log("app")')
  // The product as `npm start` runs it in outbox mode on a laptop: outbox page and web app on.
  app = await buildApp(t.ctx, { webDir, outboxPage: true })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  port = Number(new URL(address).port)
  user = await quickSignIn(t)
})
afterAll(async () => {
  await app?.close()
  fs.rmSync(webDir, { recursive: true, force: true })
})

const FOREIGN_HOSTS = (p: number) => [
  `rebind.attacker.example:${p}`,
  'rebind.attacker.example',
  `evil.example:${p}`,
  // Names that contain an allowed one, or look like it.
  `app.test.attacker.example:${p}`,
  `localhost.attacker.example:${p}`,
  `127.0.0.1.nip.io:${p}`,
  `notapp.test:${p}`,
  'app.test.',
  'localhost.',
  // Other addresses of this machine, and odd spellings of loopback that a name could resolve to.
  `127.0.0.2:${p}`,
  `0.0.0.0:${p}`,
  `[::ffff:127.0.0.1]:${p}`,
  `2130706433:${p}`,
  // Not a host at all.
  '',
  'localhost:abc',
  'localhost@attacker.example',
  'app.test:80:80',
]

describe('a foreign or rebound Host', () => {
  it('cannot read the outbox: every spelling of a foreign name is a 421 envelope, with no mail in it', async () => {
    // There is something worth stealing in it: a reset link.
    const victim = await quickUser(t)
    await forgotPassword(t, victim.email)
    expect(await mailTo(t, victim.email)).toHaveLength(1)

    for (const host of FOREIGN_HOSTS(port)) {
      const answer = await rawRequest(port, 'GET', '/dev/outbox', host)
      expectRefused(answer, `/dev/outbox with Host "${host}"`)
      expect(answer.body).not.toContain('reset-password')
    }
    // With no Host header at all (HTTP/1.0), too.
    expectRefused(await rawRequest(port, 'GET', '/dev/outbox', null), '/dev/outbox without Host')
  })

  it('cannot use the API: reads, sign-in, a reset request and registration are refused and change nothing', async () => {
    const host = `rebind.attacker.example:${port}`
    const victim = await quickUser(t)
    const json = { 'Content-Type': 'application/json' }
    const calls: [string, string, Record<string, string>, string][] = [
      ['GET', '/api/health', {}, ''],
      ['GET', '/api/auth/me', { Authorization: `Bearer ${user.accessToken}` }, ''],
      ['GET', '/api/admin/users', { Authorization: `Bearer ${user.accessToken}` }, ''],
      ['POST', '/api/auth/login', json, JSON.stringify({ email: victim.email, password: victim.password })],
      ['POST', '/api/auth/forgot-password', json, JSON.stringify({ email: victim.email })],
      [
        'POST',
        '/api/auth/register',
        json,
        JSON.stringify({ name: 'Rebound', email: 'rebound@example.com', password: 'Rebound-Visit-42!', confirmPassword: 'Rebound-Visit-42!' }),
      ],
      ['POST', '/api/auth/refresh-token', json, JSON.stringify({ refreshToken: user.refreshToken })],
      ['OPTIONS', '/api/auth/login', { Origin: `http://${host}`, 'Access-Control-Request-Method': 'POST' }, ''],
    ]
    for (const [method, target, headers, body] of calls) {
      expectRefused(await rawRequest(port, method, target, host, headers, body), `${method} ${target}`)
    }
    // Nothing happened: no session for the victim, no reset mail, no account, and the user's
    // refresh token was not rotated (it still works, once, from the right host).
    expect(await countWhere(t, 'activities', { user_id: victim.id })).toBe(0)
    expect(await mailTo(t, victim.email)).toEqual([])
    expect(await t.ctx.db.selectFrom('users').select('id').where('email', '=', 'rebound@example.com').executeTakeFirst()).toBeUndefined()
    const refreshed = await rawRequest(port, 'POST', '/api/auth/refresh-token', `localhost:${port}`, json, JSON.stringify({ refreshToken: user.refreshToken }))
    expect(refreshed.status).toBe(200)
  })

  it('gets neither the web app, its files, nor a 404 of its own', async () => {
    const host = `rebind.attacker.example:${port}`
    for (const target of ['/', '/login', '/reset-password?token=abc', '/assets/app-1234.js', '/assets/missing.js', '/no-such-page', '/api/no-such-call']) {
      const answer = await rawRequest(port, 'GET', target, host)
      expectRefused(answer, target)
      expect(answer.body).not.toContain('<div id="root">')
      expect(answer.body).not.toContain('console.log')
    }
  })

  it('behind a trusted proxy: the forwarded host is the one checked', async () => {
    const proxied = await createTestApp({ TRUST_PROXY: '127.0.0.1' })
    const behind = await buildApp(proxied.ctx, { outboxPage: true })
    try {
      const address = await behind.listen({ port: 0, host: '127.0.0.1' })
      const p = Number(new URL(address).port)
      // The proxy connects with its own upstream name and forwards the browser's Host.
      expectRefused(await rawRequest(p, 'GET', '/dev/outbox', 'accounts-upstream:3000', { 'X-Forwarded-Host': 'rebind.attacker.example' }), 'forwarded foreign host')
      expectRefused(await rawRequest(p, 'GET', '/api/health', 'localhost', { 'X-Forwarded-Host': 'rebind.attacker.example' }), 'forwarded foreign host, loopback Host')
      expect((await rawRequest(p, 'GET', '/api/health', 'accounts-upstream:3000', { 'X-Forwarded-Host': 'app.test' })).status).toBe(200)
    } finally {
      await behind.close()
      await proxied.close()
    }
  })

  it('from an untrusted client, a forwarded host changes nothing: the Host header is checked', async () => {
    expect((await rawRequest(port, 'GET', '/api/health', `localhost:${port}`, { 'X-Forwarded-Host': 'app.test' })).status).toBe(200)
    expectRefused(await rawRequest(port, 'GET', '/api/health', 'rebind.attacker.example', { 'X-Forwarded-Host': 'app.test' }), 'forged forwarded host')
  })
})

describe("APP_URL's host and the loopback names", () => {
  it('are served on any port and in any letter case: the outbox, the API, the pages and their files', async () => {
    const hosts = ['app.test', 'APP.Test:8443', `localhost:${port}`, 'LOCALHOST', `127.0.0.1:${port}`, '127.0.0.1', `[::1]:${port}`, '[::1]']
    for (const host of hosts) {
      const outbox = await rawRequest(port, 'GET', '/dev/outbox', host)
      expect(outbox.status, host).toBe(200)
      expect(outbox.body).toContain('<h1>Outbox</h1>')
      const me = await rawRequest(port, 'GET', '/api/auth/me', host, { Authorization: `Bearer ${user.accessToken}` })
      expect(me.status, host).toBe(200)
      expect(JSON.parse(me.body).data.email).toBe(user.email)
      const page = await rawRequest(port, 'GET', '/login', host)
      expect(page.status, host).toBe(200)
      expect(page.body).toContain('<div id="root">')
      expect((await rawRequest(port, 'GET', '/assets/app-1234.js', host)).status, host).toBe(200)
      expect((await rawRequest(port, 'GET', '/no-such-page.js', host)).status, host).toBe(404)
    }
  })

  it('whatever APP_URL is: an IPv6 address, a container name, an internationalised name', async () => {
    for (const [appUrl, served, refused] of [
      ['http://[2001:db8::7]:8080', '[2001:DB8::7]:8080', '[2001:db8::8]:8080'],
      ['http://accounts_web:3000', 'accounts_web:3000', 'accounts-web:3000'],
      ['https://bücher.example', 'xn--bcher-kva.example', 'bücher.example'],
    ] as const) {
      const other = await buildApp({ ...t.ctx, config: { ...t.ctx.config, appUrl } })
      try {
        expect((await other.inject({ method: 'GET', url: '/api/health', headers: { host: served } })).statusCode, served).toBe(200)
        expect((await other.inject({ method: 'GET', url: '/api/health', headers: { host: refused } })).statusCode, refused).toBe(421)
      } finally {
        await other.close()
      }
    }
  })

  it('and the names of ALLOWED_HOSTS, for scrapers and probes that reach an instance by its address; nothing else', async () => {
    const listed = await createTestApp({ ALLOWED_HOSTS: '10.0.0.11, Scraper.Internal,[fd00::11]' })
    const other = await buildApp(listed.ctx)
    try {
      for (const host of ['10.0.0.11:3000', 'scraper.internal', '[FD00::11]:3000', 'app.test', 'localhost:3000']) {
        expect((await other.inject({ method: 'GET', url: '/api/health', headers: { host } })).statusCode, host).toBe(200)
      }
      for (const host of ['10.0.0.12:3000', 'scraper.internal.attacker.example', 'rebind.attacker.example']) {
        expect((await other.inject({ method: 'GET', url: '/api/health', headers: { host } })).statusCode, host).toBe(421)
      }
    } finally {
      await other.close()
      await listed.close()
    }
    for (const value of ['10.0.0.11:3000', '*.internal', 'http://scraper.internal', 'a b']) {
      expect(() => loadConfig({ ALLOWED_HOSTS: value }), value).toThrow(ConfigError)
    }
  })
})
