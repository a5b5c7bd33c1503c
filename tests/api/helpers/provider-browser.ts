import type { LightMyRequestResponse } from 'fastify'
import type { TestApp } from '../../support/test-app'

/**
 * A browser for signing in through an identity provider: cookies of our app (through `inject`,
 * Host of APP_URL) and of the upstream provider (real HTTP on loopback), kept apart as a browser
 * keeps them, and redirects followed by hand so each step can be looked at or tampered with.
 */
export class ProviderBrowser {
  readonly appCookies = new Map<string, string>()
  private readonly upstreamCookies = new Map<string, string>()

  constructor(private readonly t: TestApp) {}

  private keep(jar: Map<string, string>, setCookies: string[]) {
    for (const line of setCookies) {
      const [pair] = line.split(';')
      const at = pair!.indexOf('=')
      const name = pair!.slice(0, at).trim()
      const value = pair!.slice(at + 1).trim()
      if (value === '' || /max-age=0/i.test(line)) jar.delete(name)
      else jar.set(name, value)
    }
  }

  private cookieHeader(jar: Map<string, string>) {
    return [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  /** A request to our app as this browser (the transaction cookie goes where its path allows). */
  async app(method: string, url: string, options: { body?: unknown; token?: string; csrf?: string } = {}): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = {}
    const path = new URL(url, this.t.config.appUrl).pathname
    if (path.startsWith('/api/auth/federation') && this.appCookies.size > 0) headers.cookie = this.cookieHeader(this.appCookies)
    const response = await this.t.request(method, url.replace(this.t.config.appUrl, ''), {
      headers,
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.token ? { token: options.token } : {}),
      ...(options.csrf ? { csrf: options.csrf } : {}),
    })
    const setCookie = response.headers['set-cookie']
    this.keep(this.appCookies, setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie])
    return response
  }

  /** `/api/auth/federation/:id/start`: where it sends the browser. */
  async start(providerId: string, query = ''): Promise<string> {
    const response = await this.app('GET', `/api/auth/federation/${providerId}/start${query}`)
    if (response.statusCode !== 302) throw new Error(`start answered ${response.statusCode}: ${response.body}`)
    return String(response.headers.location)
  }

  /** Follows the upstream provider's redirects until it sends the browser back to our app; that address. */
  async atProvider(url: string): Promise<string> {
    let next = url
    for (let hops = 0; hops < 10; hops += 1) {
      if (next.startsWith(this.t.config.appUrl)) return next
      const response = await fetch(next, { redirect: 'manual', headers: { cookie: this.cookieHeader(this.upstreamCookies) } })
      this.keep(this.upstreamCookies, response.headers.getSetCookie())
      const location = response.headers.get('location')
      if (!location) throw new Error(`the provider stopped at ${next}: ${response.status} ${await response.text()}`)
      next = new URL(location, next).href
    }
    throw new Error('too many redirects at the provider')
  }

  /** Our callback, as the provider sent it: where our app sends the browser next. */
  async callback(url: string): Promise<string> {
    const response = await this.app('GET', url)
    if (response.statusCode !== 302) throw new Error(`callback answered ${response.statusCode}: ${response.body}`)
    return String(response.headers.location)
  }

  /** The handoff page's call with the code of its fragment. */
  complete(handoffUrl: string): Promise<LightMyRequestResponse> {
    const handoff = new URL(handoffUrl).hash.replace(/^#handoff=/, '')
    return this.app('POST', '/api/auth/federation/complete', { body: { handoff } })
  }

  /** The whole way: start, the provider, the callback; the address our app ends on. */
  async signIn(providerId: string, query = ''): Promise<string> {
    return this.callback(await this.atProvider(await this.start(providerId, query)))
  }
}
