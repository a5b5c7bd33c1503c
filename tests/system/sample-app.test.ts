import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { type SampleApp, samplePort, startSampleApp } from '../support/sample-app'
import { CookieJar, productLogin, registerApplication, signInThroughProduct, stopAll, verifiedPerson, waitFor } from './relying-party'
import { call, freePort, type ServerProcess, startServer, tempDataDir } from './server-process'

/**
 * The sample app of docs/sign-in-with-accounts.md (docs/examples/sample-app.mjs), run as a newcomer
 * runs it, against the real server: a person signs in to it through the product (plain HTTP, the
 * way the web app's sign-in and consent pages call the API), the app shows their claims; then an
 * administrator suspends the person, and the app hears of it by back-channel logout. With a short
 * access token life, the app's visits past each expiry refresh the tokens (rotated at every use).
 */

const ADMIN = { email: 'sample-admin@example.com', password: 'Vivid-Kettle-42!' }
const PERSON = { name: 'Grace Hopper', email: 'grace@example.com', password: 'Amber-Falcon-73!' }
/** ACCESS_TOKEN_TTL of the refresh test, in seconds. */
const ACCESS_TOKEN_TTL = 2

describe('the sample app of the docs', () => {
  let server: ServerProcess | undefined
  let sample: SampleApp | undefined
  const dirs: string[] = []

  afterEach(async () => {
    const running = { sample, server }
    sample = undefined
    server = undefined
    await stopAll(running.sample && (() => running.sample!.stop()), running.server, dirs)
  })

  /** The server (with `settings` besides), a person with a verified address, and the sample app registered as a `type` application and running. */
  async function start(type: 'confidential' | 'public', settings: Record<string, string> = {}) {
    const dataDir = tempDataDir()
    dirs.push(dataDir)
    const port = await freePort()
    server = await startServer({
      DATA_DIR: dataDir,
      APP_URL: `http://127.0.0.1:${port}`,
      PORT: String(port),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ...settings,
    })
    const running = server
    await verifiedPerson(running, PERSON)

    // The administrator registers the sample app, on the port it will listen on.
    const appPort = await samplePort()
    const base = `http://localhost:${appPort}`
    const { clientId, clientSecret } = await registerApplication(running, ADMIN, {
      name: 'Sample App',
      type,
      redirectUris: [`${base}/callback`],
      postLogoutRedirectUris: [`${base}/`],
      backchannelLogoutUri: `${base}/backchannel-logout`,
    })
    expect(Boolean(clientSecret)).toBe(type === 'confidential')

    // A public app runs without CLIENT_SECRET: PKCE alone.
    const app = await startSampleApp({ ISSUER: `${running.url}/oidc`, CLIENT_ID: clientId, ...(clientSecret ? { CLIENT_SECRET: clientSecret } : {}), PORT: appPort })
    sample = app
    expect(app.output()).toContain(`Discovered ${running.url}/oidc as ${clientId} (${type} app)`)
    return { running, app, base }
  }

  /** The person's browser follows the sample app's link to the product's sign-in page, signs in and allows; answers the app's page it lands on. */
  async function signIn(running: ServerProcess, app: SampleApp, base: string, browser: CookieJar): Promise<string> {
    const signedOut = await browser.request('GET', `${base}/`)
    expect(await signedOut.text()).toContain('<a href="/login">Sign in with Accounts</a>')
    const atLogin = await browser.walk(running, `${base}/login`)
    expect(atLogin.url.origin + atLogin.url.pathname).toBe(`${running.url}/login`)
    const authorize = new URL(app.output().match(/Sending the browser to (\S+)/)![1]!)
    expect(authorize.href).toBe(`${running.url}/oidc/auth`)
    const { landed } = await signInThroughProduct(browser, running, atLogin.url, PERSON)
    expect(landed.url.href).toBe(`${base}/`)
    return landed.response.text()
  }

  it.each(['confidential', 'public'] as const)(
    '%s: signs a person in through the product and shows their claims; a suspension reaches it by back-channel logout',
    async (type) => {
      const { running, app, base } = await start(type)
      const browser = new CookieJar()
      const home = await signIn(running, app, base, browser)
      expect(home).toContain('Signed in as Grace Hopper')
      expect(home).toContain(`<th>email</th><td><code>&#34;${PERSON.email}&#34;</code></td>`)
      expect(home).toContain('<th>roles</th><td><code>[&#34;CLIENT&#34;]</code></td>')
      expect(home).toContain('<th>amr</th><td><code>[&#34;pwd&#34;]</code></td>')
      expect(app.output()).toMatch(new RegExp(`Signed in: ${PERSON.email} \\(sub [\\w-]+, amr pwd, sid [\\w-]+\\)`))

      // The administrator suspends the person: the product tells the app, which ends that session.
      const admin = await productLogin(running, ADMIN)
      const found = await call(running, 'GET', `/api/admin/users?search=${encodeURIComponent(PERSON.email)}`, undefined, admin.accessToken)
      const userId = (found.body.data.users as { id: string; email: string }[]).find((user) => user.email === PERSON.email)!.id
      const suspended = await new CookieJar().request('PUT', `${running.url}/api/admin/users/${userId}`, {
        token: admin.accessToken,
        csrf: admin.csrfToken,
        body: { status: 'SUSPENDED' },
      })
      expect(suspended.status).toBe(200)
      // Delivered from the server's queue (polled every 2 s); the app has not been visited since.
      await app.printed(/Back-channel logout for sid [\w-]+ \(sub [\w-]+\): 1 session\(s\) ended/, 20_000)
      const after = await (await browser.request('GET', `${base}/`)).text()
      expect(after).toContain('<p>You are signed out.</p>')
      expect(after).not.toContain('access ended')
    },
  )

  it('refreshes the tokens once the access token has expired, and again with the rotated refresh token', async () => {
    // The shortest access token life the setting takes is 1 second; 2 gives a token at least one
    // whole second (the engine counts in whole seconds), enough for a sign-in's few requests.
    const { running, app, base } = await start('confidential', { ACCESS_TOKEN_TTL: String(ACCESS_TOKEN_TTL) })
    const browser = new CookieJar()
    const refreshes = () =>
      app
        .output()
        .split('\n')
        .filter((line) => line === `Refreshed the tokens of ${PERSON.email}`).length
    const signedIn = (page: string) => {
      expect(page).toContain('Signed in as Grace Hopper')
      expect(page).toContain(`<th>email</th><td><code>&#34;${PERSON.email}&#34;</code></td>`)
      expect(page).toContain('<th>roles</th><td><code>[&#34;CLIENT&#34;]</code></td>')
    }
    signedIn(await signIn(running, app, base, browser))
    // The first visit read UserInfo with the access token of the sign-in (a machine slow enough to
    // outlive it there has already refreshed once: counted from here).
    const before = refreshes()

    for (const expiry of [1, 2]) {
      // Past the life of the newest access token, which the app got before its last page was answered.
      await sleep(ACCESS_TOKEN_TTL * 1000 + 100)
      const page = await (await browser.request('GET', `${base}/`)).text()
      expect(page, `visit after expiry ${expiry}`).not.toContain('access ended')
      signedIn(page)
      await waitFor(() => refreshes() === before + expiry, 5_000).catch(() => {
        throw new Error(`expected ${before + expiry} refreshes after expiry ${expiry}, saw ${refreshes()}:\n${app.output()}`)
      })
    }
    // Each refresh rotated the refresh token, and a used one presented again revokes the whole grant:
    // the second refresh went through only with the successor the first one answered.
    expect(app.output()).not.toMatch(/Access of .* ended/)
  })
})
