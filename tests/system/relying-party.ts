import fs from 'node:fs'
import http from 'node:http'
import { call, killStrayServers, removeDataDir, type ServerProcess, stopServer } from './server-process'

/**
 * What the tests of a real relying party (the docs' sample app, Apache's mod_auth_openidc) share:
 * a browser's cookies, a person with a verified address, an application registered through the
 * admin API, and a person signing in through the product's pages as those pages do (their API
 * calls, in plain HTTP).
 */

/**
 * Stops the relying party (`stopApp`), then the server, then any server left astray, and removes
 * the data folders: each step runs whatever the one before did, so no process is left behind.
 */
export async function stopAll(stopApp: (() => Promise<void>) | undefined, server: ServerProcess | undefined, dirs: string[]): Promise<void> {
  try {
    await stopApp?.()
  } finally {
    try {
      if (server) await stopServer(server).catch(() => undefined)
    } finally {
      await killStrayServers()
      for (const dir of dirs.splice(0)) removeDataDir(dir)
    }
  }
}

export interface Credentials {
  email: string
  password: string
}

/** A signed-in product session, as POST /api/auth/login answers it. */
export interface ProductSession {
  accessToken: string
  csrfToken: string
}

/** A browser's cookies, by host and path; redirects are followed by hand. */
export class CookieJar {
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

  /**
   * A request of this browser. One without a JSON body or a bearer token (the web app's API calls)
   * is a navigation, and says so as browsers do (Accept: text/html, Sec-Fetch-Mode: navigate):
   * mod_auth_openidc answers 401 instead of sending to the provider a request that is not one.
   */
  async request(method: string, target: URL | string, options: { token?: string; csrf?: string; body?: unknown; form?: Record<string, string> } = {}): Promise<Response> {
    const url = new URL(target)
    const navigation = options.body === undefined && !options.token
    const headers: Record<string, string> = navigation
      ? { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }
      : { accept: '*/*', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' }
    const cookie = this.header(url)
    if (cookie) headers.cookie = cookie
    if (options.token) headers.authorization = `Bearer ${options.token}`
    if (options.csrf) headers['x-csrf-token'] = options.csrf
    let body: string | undefined
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(options.body)
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(options.form).toString()
    }
    const response = await send(method, url, headers, body)
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

/**
 * One HTTP request, answered as a fetch Response. Through node:http rather than fetch, which
 * always says `Sec-Fetch-Mode: cors`: a browser's navigation says `navigate`.
 */
function send(method: string, url: URL, headers: Record<string, string>, body?: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const sized = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) }
    const request = http.request(url, { method, headers: sized }, (answer) => {
      const chunks: Buffer[] = []
      answer.on('data', (chunk: Buffer) => chunks.push(chunk))
      answer.on('error', reject)
      answer.on('end', () => {
        const received = new Headers()
        for (let i = 0; i < answer.rawHeaders.length; i += 2) received.append(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!)
        const status = answer.statusCode ?? 502
        resolve(new Response([204, 205, 304].includes(status) ? null : new Uint8Array(Buffer.concat(chunks)), { status, headers: received }))
      })
    })
    request.on('error', reject)
    request.end(body)
  })
}

export async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export async function productLogin(server: ServerProcess, credentials: Credentials): Promise<ProductSession> {
  const answer = await call(server, 'POST', '/api/auth/login', { email: credentials.email, password: credentials.password })
  if (answer.status !== 200) throw new Error(`sign-in of ${credentials.email}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body.data as ProductSession
}

/**
 * The links of the e-mails the server wrote to its outbox (development, no SMTP), from the files its
 * JSON log names: the log itself never holds them (they carry one-time tokens).
 */
function outboxLinks(server: ServerProcess): string {
  return server
    .output()
    .split('\n')
    .flatMap((line) => {
      if (!line.startsWith('{')) return []
      const { msg, file } = JSON.parse(line) as { msg?: string; file?: string }
      if (!file || !msg?.startsWith('e-mail written to the outbox')) return []
      return (JSON.parse(fs.readFileSync(`${file}.json`, 'utf8')) as { links: string[] }).links
    })
    .join('\n')
}

/** Registers a person and verifies their address with the link of the e-mail the server writes in development (no SMTP: the outbox). */
export async function verifiedPerson(server: ServerProcess, person: Credentials & { name: string }): Promise<void> {
  const registered = await call(server, 'POST', '/api/auth/register', { ...person, confirmPassword: person.password })
  if (registered.status !== 201) throw new Error(`registration of ${person.email}: ${registered.status} ${JSON.stringify(registered.body)}`)
  const link = new RegExp(`verify-email\\?token=([\\w-]+)&email=${encodeURIComponent(person.email).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)
  await waitFor(() => link.test(outboxLinks(server)))
  const verified = await call(server, 'GET', `/api/auth/verify-email/${link.exec(outboxLinks(server))![1]}`)
  if (verified.status !== 200) throw new Error(`verification of ${person.email}: ${verified.status} ${JSON.stringify(verified.body)}`)
}

export interface ApplicationFields {
  name: string
  type: 'confidential' | 'public'
  redirectUris: string[]
  postLogoutRedirectUris?: string[]
  backchannelLogoutUri?: string
  allowedRoles?: string[]
}

/** An administrator registers an application through the admin API (POST /api/admin/applications), as the docs show. */
export async function registerApplication(server: ServerProcess, admin: Credentials, fields: ApplicationFields): Promise<{ clientId: string; clientSecret?: string }> {
  const session = await productLogin(server, admin)
  const created = await new CookieJar().request('POST', `${server.url}/api/admin/applications`, { token: session.accessToken, csrf: session.csrfToken, body: fields })
  const body = (await created.json()) as { data: { application: { id: string }; clientSecret?: string } }
  if (created.status !== 201) throw new Error(`registration of ${fields.name}: ${created.status} ${JSON.stringify(body)}`)
  return { clientId: body.data.application.id, ...(body.data.clientSecret ? { clientSecret: body.data.clientSecret } : {}) }
}

/**
 * From the product's sign-in page that an app's sign-in led the browser to (`at`, /login or
 * /consent with its `interaction`), takes the steps the sign-in and consent pages take (their API
 * calls) and follows the redirects until the browser leaves the product. Each step signs the
 * person in to the product just before its call, so that a short ACCESS_TOKEN_TTL cannot end the
 * product's access token between two steps. Answers where the browser landed and the product
 * session whose sign-in step started the provider session (signing it out ends that one).
 */
export async function signInThroughProduct(
  browser: CookieJar,
  server: ServerProcess,
  at: URL,
  person: Credentials,
): Promise<{ landed: { url: URL; response: Response }; session: ProductSession }> {
  let step = at
  let signedIn: ProductSession | undefined
  for (let i = 0; i < 3; i++) {
    const kind = step.pathname === '/login' ? 'login' : 'consent'
    const session = await productLogin(server, person)
    if (kind === 'login') signedIn = session
    const answer = await browser.request('POST', `${server.url}/api/oidc/interactions/${step.searchParams.get('interaction')}/${kind}`, {
      token: session.accessToken,
      csrf: session.csrfToken,
      body: {},
    })
    const body = await answer.text()
    if (answer.status !== 200) throw new Error(`${kind} step: ${answer.status} ${body}`)
    const next = await browser.walk(server, new URL((JSON.parse(body) as { data: { redirectTo: string } }).data.redirectTo, server.url))
    if (next.url.origin !== server.url) {
      if (!signedIn) throw new Error('the browser left the product without a sign-in step')
      return { landed: next, session: signedIn }
    }
    step = next.url
  }
  throw new Error(`the browser did not leave the product (at ${step.href})`)
}
