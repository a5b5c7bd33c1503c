import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../support/server-process'
import { CookieJar, type Credentials, registerApplication, signInThroughProduct, stopAll, verifiedPerson, waitFor } from './relying-party'
import { startSupervised } from '../support/supervised-process'
import { freePort, type ServerProcess, startServer, tempDataDir } from './server-process'

/**
 * The Apache section of docs/sign-in-with-accounts.md, run for real: Apache (Debian's apache2 and
 * libapache2-mod-auth-openidc) with the docs' mod_auth_openidc configuration in front of a page,
 * against the real server. An administrator signs in through Apache and Apache knows them by their
 * e-mail address; a CLIENT account is refused by `Require claim roles:ADMIN`; the docs' logout link
 * signs out at the provider (RP-initiated logout); and the docs' back-channel logout URI lets a
 * sign-out at the product end the session in Apache. The configuration, the logout link and the
 * URIs registered are read from the docs themselves, with this test's addresses put in.
 */

const APACHE = process.env.APACHE ?? '/usr/sbin/apache2'
const MODULES = process.env.APACHE_MODULES ?? '/usr/lib/apache2/modules'
const ADMIN = { email: 'apache-admin@example.com', password: 'Feather-Lantern-58!' }
const PERSON = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'Copper-Meadow-29!' }

/** Why Apache with mod_auth_openidc cannot be run here, or undefined when it can. */
function apacheMissing(): string | undefined {
  if (!fs.existsSync(APACHE)) return `no Apache at ${APACHE} (apt-get install apache2, or set APACHE)`
  const module = path.join(MODULES, 'mod_auth_openidc.so')
  if (!fs.existsSync(module)) return `no ${module} (apt-get install libapache2-mod-auth-openidc, or set APACHE_MODULES)`
  return undefined
}
const missing = apacheMissing()

/** The docs' Apache section: its configuration, and the addresses it tells to register and to link to. */
function docsApacheSection() {
  const docs = fs.readFileSync(path.join(ROOT, 'docs/sign-in-with-accounts.md'), 'utf8')
  const section = /### Behind Apache: mod_auth_openidc\n([\s\S]*?)\n## /.exec(docs)?.[1]
  const config = section && /```apache\n([\s\S]*?)```/.exec(section)?.[1]
  const redirectUri = section && /with the redirect URI `([^`]+)`/.exec(section)?.[1]
  const logoutQuery = section && /send people to the redirect URI with `(\?logout=[^`]+)`/.exec(section)?.[1]
  const backchannelUri = section && /Register `([^`]+)` as the back-channel\s+logout URI/.exec(section)?.[1]
  if (!config || !redirectUri || !logoutQuery || !backchannelUri)
    throw new Error('the Apache section of docs/sign-in-with-accounts.md has changed shape: update this test')
  return { config, redirectUri, logoutQuery, backchannelUri }
}

/** Puts a test's addresses and secrets into the docs' text in place of its examples and ellipses. */
function fillIn(text: string, values: { provider: string; site: string; clientId?: string; clientSecret?: string; passphrase?: string }): string {
  let filled = text.replaceAll('https://accounts.example.com', values.provider).replaceAll('https://wiki.example.com', values.site)
  if (values.clientId) filled = filled.replace(/^(OIDCClientID\s+)app_…$/m, `$1${values.clientId}`)
  if (values.clientSecret) filled = filled.replace(/^(OIDCClientSecret\s+)…$/m, `$1${values.clientSecret}`)
  if (values.passphrase) filled = filled.replace(/^(OIDCCryptoPassphrase\s+)…$/m, `$1${values.passphrase}`)
  if (filled.includes('…') || filled.includes('example.com')) throw new Error(`a placeholder of the docs was left unfilled:\n${filled}`)
  return filled
}

interface Apache {
  url: string
  /** Apache's access log: `<request line> <status> <remote user>`, one request a line. */
  accessLog(): string
  /** Apache's error log (mod_auth_openidc's warnings and errors): shown when a step fails. */
  errorLog(): string
  close(): Promise<void>
}

/**
 * Apache serving one page (with the remote user in X-Remote-User) behind `openidc`, the docs'
 * configuration. It runs in the foreground (-X: one process), supervised so that it stops with the
 * test however the test ends (tests/support/supervised-process.ts).
 */
async function startApache(dir: string, port: number, openidc: string): Promise<Apache> {
  const www = path.join(dir, 'www')
  fs.mkdirSync(www)
  fs.writeFileSync(path.join(www, 'index.html'), '<!doctype html><title>Team Wiki</title><h1>Team Wiki</h1>\n')
  // Apache's workers run as User (below, when this runs as root): they must be able to read the page.
  fs.chmodSync(dir, 0o755)
  fs.chmodSync(www, 0o755)
  const modules = ['mpm_event', 'authn_core', 'authz_core', 'authz_user', 'dir', 'headers', 'auth_openidc']
  const config = `ServerRoot ${dir}
PidFile ${path.join(dir, 'httpd.pid')}
ErrorLog ${path.join(dir, 'error.log')}
LogLevel warn auth_openidc:info
Listen 127.0.0.1:${port}
ServerName localhost:${port}
${process.getuid?.() === 0 ? '# Apache will not serve as root: its workers run as nobody.\nUser #65534\nGroup #65534\n' : ''}${modules.map((name) => `LoadModule ${name}_module ${path.join(MODULES, `mod_${name}.so`)}`).join('\n')}
LogFormat "%r %>s %u" test
CustomLog ${path.join(dir, 'access.log')} test
DocumentRoot ${www}
DirectoryIndex index.html
# What the page would see: the remote user, and the claims the module passes in request headers.
Header set X-Remote-User "expr=%{REMOTE_USER}"
Header set X-Roles "expr=%{req:OIDC_CLAIM_roles}"

# docs/sign-in-with-accounts.md, "Behind Apache: mod_auth_openidc":
${openidc}`
  const file = path.join(dir, 'httpd.conf')
  fs.writeFileSync(file, config)

  const read = (name: string) => {
    try {
      return fs.readFileSync(path.join(dir, name), 'utf8')
    } catch {
      return ''
    }
  }
  const apache = await startSupervised({
    name: 'Apache',
    command: APACHE,
    args: ['-X', '-f', file],
    port,
    diagnostics: () => read('error.log'),
    // Neither Apache nor its supervisor may outlive the test.
    onStuck: () => {
      const pid = Number(read('httpd.pid').trim())
      try {
        if (pid > 0) process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    },
  })
  return { url: `http://localhost:${port}`, accessLog: () => read('access.log'), errorLog: () => read('error.log'), close: apache.stop }
}

describe.skipIf(missing)(`the docs' Apache mod_auth_openidc configuration${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const dirs: string[] = []
  let server: ServerProcess | undefined
  let apache: Apache | undefined
  let logoutLink = ''

  beforeAll(async () => {
    try {
      const docs = docsApacheSection()
      const dataDir = tempDataDir()
      dirs.push(dataDir)
      const port = await freePort()
      server = await startServer({ DATA_DIR: dataDir, APP_URL: `http://127.0.0.1:${port}`, PORT: String(port), ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password })
      await verifiedPerson(server, PERSON)

      // The application, registered as the docs say (no allowed roles: Apache's `Require claim` decides).
      const apachePort = await freePort()
      const addresses = { provider: server.url, site: `http://localhost:${apachePort}` }
      const logoutQuery = fillIn(docs.logoutQuery, addresses)
      const { clientId, clientSecret } = await registerApplication(server, ADMIN, {
        name: 'Team Wiki',
        type: 'confidential',
        redirectUris: [fillIn(docs.redirectUri, addresses)],
        postLogoutRedirectUris: [new URLSearchParams(logoutQuery).get('logout')!],
        backchannelLogoutUri: fillIn(docs.backchannelUri, addresses),
      })
      logoutLink = `${fillIn(docs.redirectUri, addresses)}${logoutQuery}`

      const apacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-apache-'))
      dirs.push(apacheDir)
      const openidc = fillIn(docs.config, { ...addresses, clientId, clientSecret: clientSecret!, passphrase: crypto.randomBytes(32).toString('base64url') })
      apache = await startApache(apacheDir, apachePort, openidc)
    } catch (error) {
      await cleanUp()
      throw error
    }
  })

  async function cleanUp() {
    const running = { apache, server }
    apache = undefined
    server = undefined
    await stopAll(running.apache && (() => running.apache!.close()), running.server, dirs)
  }
  afterAll(cleanUp)

  /** The back-channel logouts Apache was sent, as its access log has them: request line and status. */
  const backchannel = () => apache!.accessLog().match(/^POST \/oidc-callback\?logout=backchannel HTTP\/1\.1 \d+/gm) ?? []
  const delivered = (after: number) =>
    waitFor(() => backchannel().length > after, 20_000).catch(() => {
      throw new Error(`no back-channel logout reached Apache:\n${apache!.accessLog()}\n${apache!.errorLog()}`)
    })

  /**
   * Waits for Apache's access log to hold a line: Apache writes a request's line once its answer has
   * been sent, so the client can have the answer a moment before the line is there.
   */
  async function expectLogged(line: RegExp) {
    await waitFor(() => line.test(apache!.accessLog()), 5_000).catch(() => undefined)
    expect(apache!.accessLog()).toMatch(line)
  }

  /** A browser asks Apache for its page, is sent to the product's sign-in page, signs in there and is sent back. */
  async function signInThroughApache(browser: CookieJar, person: Credentials) {
    const atLogin = await browser.walk(server!, `${apache!.url}/`)
    if (atLogin.url.origin + atLogin.url.pathname !== `${server!.url}/login`) {
      throw new Error(`Apache did not send the browser to the product to sign in: ${atLogin.url.href} answered ${atLogin.response.status}\n${apache!.errorLog()}`)
    }
    const { landed, session } = await signInThroughProduct(browser, server!, atLogin.url, person)
    expect(landed.url.href).toBe(`${apache!.url}/`)
    return { response: landed.response, session }
  }

  it('lets an administrator in, known to Apache by their e-mail address', async () => {
    const browser = new CookieJar()
    const { response } = await signInThroughApache(browser, ADMIN)
    expect(response.status).toBe(200)
    expect(response.headers.get('x-remote-user')).toBe(ADMIN.email)
    expect(response.headers.get('x-roles')).toBe('ADMIN')
    expect(await response.text()).toContain('<h1>Team Wiki</h1>')
    // The module's session cookie carries the next requests without the provider.
    const again = await browser.request('GET', `${apache!.url}/`)
    expect(again.status).toBe(200)
    expect(again.headers.get('x-remote-user')).toBe(ADMIN.email)
    await expectLogged(new RegExp(`^GET / HTTP/1\\.1 200 ${ADMIN.email.replace(/\./g, '\\.')}$`, 'm'))
  })

  it('refuses a CLIENT account with 403 (Require claim roles:ADMIN)', async () => {
    const browser = new CookieJar()
    const { response } = await signInThroughApache(browser, PERSON)
    expect(response.status).toBe(403)
    expect(await response.text()).not.toContain('Team Wiki')
    // Signed in as far as Apache knows, but not allowed.
    await expectLogged(new RegExp(`^GET / HTTP/1\\.1 403 ${PERSON.email.replace(/\./g, '\\.')}$`, 'm'))
  })

  it("signs out at the provider through the docs' logout link (RP-initiated logout)", async () => {
    const browser = new CookieJar()
    const { session } = await signInThroughApache(browser, ADMIN)
    const before = backchannel().length

    // The module ends its session and sends the browser to the provider's end-session page.
    const confirm = await browser.walk(server!, logoutLink)
    expect(confirm.url.origin + confirm.url.pathname).toBe(`${server!.url}/oidc/session/end`)
    const page = await confirm.response.text()
    expect(page).toContain('name="oidc-app-name" content="Team Wiki"')
    const action = /name="oidc-logout-action" content="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&')
    const xsrf = /name="oidc-logout-xsrf" content="([^"]+)"/.exec(page)![1]!
    // "Sign out of Team Wiki?": confirmed, as the page's form does.
    const done = await browser.request('POST', new URL(action, server!.url), { form: { xsrf, logout: 'yes' } })
    expect(done.status).toBe(303)
    const back = new URL(done.headers.get('location')!)
    expect(back.origin + back.pathname).toBe(`${apache!.url}/`)

    // Signed out on both sides: Apache asks for a sign-in again, and the provider asks for the password.
    const after = await browser.walk(server!, back)
    expect(after.url.origin + after.url.pathname).toBe(`${server!.url}/login`)
    // The product session that signed in is over too.
    expect((await new CookieJar().request('GET', `${server!.url}/api/auth/me`, { token: session.accessToken })).status).toBe(401)
    // The provider also tells the app by back-channel logout (of a session the module has already ended).
    await delivered(before)
  })

  it("ends the session in Apache by back-channel logout when the person signs out of the product (the docs' back-channel URI)", async () => {
    const browser = new CookieJar()
    const { session } = await signInThroughApache(browser, ADMIN)
    expect((await browser.request('GET', `${apache!.url}/`)).status).toBe(200)
    const before = backchannel().length

    // Signing out of the product session that signed in ends its provider session: the product tells Apache.
    const signedOut = await new CookieJar().request('POST', `${server!.url}/api/auth/logout`, { token: session.accessToken, csrf: session.csrfToken })
    expect(signedOut.status).toBe(200)
    // Delivered from the server's queue (polled every 2 s).
    await delivered(before)
    const next = await browser.request('GET', `${apache!.url}/`)
    expect(next.status, 'the next request is sent to sign in again').toBe(302)
    const location = new URL(next.headers.get('location')!)
    expect(location.origin + location.pathname).toBe(`${server!.url}/oidc/auth`)
    // Every back-channel logout (this one, and the one the RP-initiated logout sent) was answered 200:
    // the product had none to try again.
    expect(backchannel(), apache!.errorLog()).toEqual(backchannel().map(() => 'POST /oidc-callback?logout=backchannel HTTP/1.1 200'))
  })
})
