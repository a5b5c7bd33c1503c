import { afterEach, describe, expect, it } from 'vitest'
import { type SampleApp, samplePort, startSampleApp } from '../support/sample-app'
import { call, freePort, killStrayServers, removeDataDir, type ServerProcess, startServer, stopServer, tempDataDir } from './server-process'

/**
 * The sample app of docs/sign-in-with-accounts.md (docs/examples/sample-app.mjs), run as a newcomer
 * runs it, against the real server: a person signs in to it through the product (plain HTTP, the
 * way the web app's sign-in and consent pages call the API), the app shows their claims; then an
 * administrator suspends the person, and the app hears of it by back-channel logout.
 */

const ADMIN = { email: 'sample-admin@example.com', password: 'Vivid-Kettle-42!' }
const PERSON = { name: 'Grace Hopper', email: 'grace@example.com', password: 'Amber-Falcon-73!' }

/** A browser's cookies, by host and path; redirects are followed by hand. */
class CookieJar {
  private cookies: { host: string; name: string; path: string; value: string }[] = []

  header(url: URL): string | undefined {
    const matching = this.cookies.filter((c) => c.host === url.host && (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
    return matching.length > 0 ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined
  }

  keep(url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim())
      const at = pair!.indexOf('=')
      const name = pair!.slice(0, at)
      const value = pair!.slice(at + 1)
      const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/'
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now()))
      this.cookies = this.cookies.filter((c) => !(c.host === url.host && c.name === name && c.path === path))
      if (!expired && value) this.cookies.push({ host: url.host, name, path, value })
    }
  }

  async request(method: string, target: URL | string, options: { token?: string; csrf?: string; body?: unknown } = {}): Promise<Response> {
    const url = new URL(target)
    const headers: Record<string, string> = {}
    const cookie = this.header(url)
    if (cookie) headers.cookie = cookie
    if (options.token) headers.authorization = `Bearer ${options.token}`
    if (options.csrf) headers['x-csrf-token'] = options.csrf
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(url, { method, headers, redirect: 'manual', ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) })
    this.keep(url, response)
    return response
  }

  /** GETs `url` and follows redirects, stopping at a page of the product's web app (/login, /consent) or any answer that is not a redirect. */
  async walk(server: ServerProcess, target: URL | string): Promise<{ url: URL; response: Response }> {
    let url = new URL(target)
    for (let i = 0; i < 15; i++) {
      if (url.origin === server.url && (url.pathname === '/login' || url.pathname === '/consent')) return { url, response: new Response(null) }
      const response = await this.request('GET', url)
      if (response.status < 300 || response.status >= 400) return { url, response }
      url = new URL(response.headers.get('location')!, url)
    }
    throw new Error('too many redirects')
  }
}

describe('the sample app of the docs', () => {
  let server: ServerProcess | undefined
  let sample: SampleApp | undefined
  const dirs: string[] = []

  afterEach(async () => {
    // Each step runs whatever the one before did: no process is left behind.
    try {
      await sample?.stop()
    } finally {
      sample = undefined
      try {
        if (server) await stopServer(server).catch(() => undefined)
      } finally {
        server = undefined
        await killStrayServers()
        for (const dir of dirs.splice(0)) removeDataDir(dir)
      }
    }
  })

  it.each(['confidential', 'public'] as const)(
    '%s: signs a person in through the product and shows their claims; a suspension reaches it by back-channel logout',
    async (type) => {
      const dataDir = tempDataDir()
      dirs.push(dataDir)
      const port = await freePort()
      server = await startServer({ DATA_DIR: dataDir, APP_URL: `http://127.0.0.1:${port}`, PORT: String(port), ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password })
      const running = server

      // A person with a verified address (the link the server prints in development).
      const registered = await call(running, 'POST', '/api/auth/register', { ...PERSON, confirmPassword: PERSON.password })
      expect(registered.status).toBe(201)
      await waitFor(() => /verify-email\?token=([\w-]+)/.test(running.output()))
      const token = /verify-email\?token=([\w-]+)/.exec(running.output())![1]
      expect((await call(running, 'GET', `/api/auth/verify-email/${token}`)).status).toBe(200)

      // The administrator registers the sample app, on the port it will listen on.
      const admin = (await call(running, 'POST', '/api/auth/login', ADMIN)).body.data as { accessToken: string; csrfToken: string }
      const adminJar = new CookieJar()
      const appPort = await samplePort()
      const base = `http://localhost:${appPort}`
      const created = await adminJar.request('POST', `${running.url}/api/admin/applications`, {
        token: admin.accessToken,
        csrf: admin.csrfToken,
        body: {
          name: 'Sample App',
          type,
          redirectUris: [`${base}/callback`],
          postLogoutRedirectUris: [`${base}/`],
          backchannelLogoutUri: `${base}/backchannel-logout`,
        },
      })
      expect(created.status).toBe(201)
      const { application, clientSecret } = ((await created.json()) as { data: { application: { id: string }; clientSecret?: string } }).data
      expect(Boolean(clientSecret)).toBe(type === 'confidential')

      // A public app runs without CLIENT_SECRET: PKCE alone.
      sample = await startSampleApp({ ISSUER: `${running.url}/oidc`, CLIENT_ID: application.id, ...(clientSecret ? { CLIENT_SECRET: clientSecret } : {}), PORT: appPort })
      expect(sample.output()).toContain(`Discovered ${running.url}/oidc as ${application.id} (${type} app)`)

      // The person's browser: the sample app's link leads to the product's sign-in page.
      const browser = new CookieJar()
      const signedOut = await browser.request('GET', `${base}/`)
      expect(await signedOut.text()).toContain('<a href="/login">Sign in with Accounts</a>')
      const atLogin = await browser.walk(running, `${base}/login`)
      expect(atLogin.url.origin + atLogin.url.pathname).toBe(`${running.url}/login`)
      const authorize = new URL(sample.output().match(/Sending the browser to (\S+)/)![1]!)
      expect(authorize.href).toBe(`${running.url}/oidc/auth`)

      // What the sign-in page and the consent page do, as calls.
      const person = (await call(running, 'POST', '/api/auth/login', { email: PERSON.email, password: PERSON.password })).body.data as {
        accessToken: string
        csrfToken: string
      }
      let at = atLogin.url
      let landed: { url: URL; response: Response } | undefined
      for (let i = 0; i < 3 && !landed; i++) {
        const step = at.pathname === '/login' ? 'login' : 'consent'
        const answer = await browser.request('POST', `${running.url}/api/oidc/interactions/${at.searchParams.get('interaction')}/${step}`, {
          token: person.accessToken,
          csrf: person.csrfToken,
          body: {},
        })
        expect(answer.status, `${step} step`).toBe(200)
        const next = await browser.walk(running, new URL(((await answer.json()) as { data: { redirectTo: string } }).data.redirectTo, running.url))
        if (next.url.origin === running.url) at = next.url
        else landed = next
      }
      expect(landed!.url.href).toBe(`${base}/`)
      const home = await landed!.response.text()
      expect(home).toContain('Signed in as Grace Hopper')
      expect(home).toContain(`<th>email</th><td><code>&#34;${PERSON.email}&#34;</code></td>`)
      expect(home).toContain('<th>roles</th><td><code>[&#34;CLIENT&#34;]</code></td>')
      expect(home).toContain('<th>amr</th><td><code>[&#34;pwd&#34;]</code></td>')
      expect(sample.output()).toMatch(new RegExp(`Signed in: ${PERSON.email} \\(sub [\\w-]+, amr pwd, sid [\\w-]+\\)`))

      // The administrator suspends the person: the product tells the app, which ends that session.
      const found = await call(running, 'GET', `/api/admin/users?search=${encodeURIComponent(PERSON.email)}`, undefined, admin.accessToken)
      const userId = (found.body.data.users as { id: string; email: string }[]).find((user) => user.email === PERSON.email)!.id
      const suspended = await adminJar.request('PUT', `${running.url}/api/admin/users/${userId}`, {
        token: admin.accessToken,
        csrf: admin.csrfToken,
        body: { status: 'SUSPENDED' },
      })
      expect(suspended.status).toBe(200)
      // Delivered from the server's queue (polled every 2 s); the app has not been visited since.
      await sample.printed(/Back-channel logout for sid [\w-]+ \(sub [\w-]+\): 1 session\(s\) ended/, 20_000)
      const after = await (await browser.request('GET', `${base}/`)).text()
      expect(after).toContain('<p>You are signed out.</p>')
      expect(after).not.toContain('access ended')
    },
  )
})

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
