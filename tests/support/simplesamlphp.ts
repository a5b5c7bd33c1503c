import { execFile, execFileSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { JSDOM } from 'jsdom'
import { freePort } from './server-process'
import { startSupervised } from './supervised-process'

/**
 * A real SAML 2.0 identity provider for the tests: SimpleSAMLphp from Debian's packages
 * (`simplesamlphp`, with `php-cli` and `php-xml`), run on PHP's built-in web server on loopback.
 * Everything it reads is in a temporary directory of its own (SIMPLESAMLPHP_CONFIG_DIR): its
 * configuration, test users of `exampleauth:UserPass` with their attributes, its hosted IdP metadata
 * with a key pair and self-signed certificate made for this run, and the service providers it
 * answers (saml20-sp-remote.php: entity ID, ACS URL with the HTTP-POST binding). It signs with
 * RSA-SHA256, the response and the assertion unless told otherwise, and gives a persistent NameID
 * (an opaque value per user and service provider, as Entra ID and Okta do).
 *
 * Nothing under /etc or /usr is changed. Where it cannot run, `simpleSamlPhpMissing()` says why in
 * a sentence for `describe.skipIf`.
 */

const SIMPLESAMLPHP_DIR = process.env.SIMPLESAMLPHP_DIR ?? '/usr/share/simplesamlphp'
const PHP = process.env.PHP ?? 'php'
const OPENSSL = process.env.OPENSSL ?? 'openssl'
/**
 * Debian's simplesamlphp package does not depend on php-xml, yet SimpleSAMLphp cannot run without
 * PHP's DOM extension. Where php-xml could not be installed, .ci/run unpacks its extensions here
 * (with an .ini file loading them), and PHP is pointed at it (docs/decisions/0546).
 */
const PHP_XML_CACHE = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'accounts-ci', 'php-xml', 'conf.d')

export const SAML = {
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  postBinding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
  redirectBinding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  rsaSha1: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
} as const

export interface SamlServiceProvider {
  /** The product's entity ID: `APP_URL/api/auth/federation/<id>/saml`. */
  entityId: string
  /** Where the response is posted (HTTP-POST binding); the product's is its entity ID. */
  acsUrl: string
  /** Default true: the `Response` carries a signature. */
  signResponse?: boolean
  /** Default true: the `Assertion` carries a signature. */
  signAssertion?: boolean
  /** Default RSA-SHA256 (`SAML.rsaSha256`); `SAML.rsaSha1` for a test of its refusal. */
  signatureAlgorithm?: string
  /** Default persistent (`SAML.persistent`). */
  nameIdFormat?: string
  /** A certificate (PEM) to encrypt the assertion to (an `EncryptedAssertion`); default none. */
  encryptionCertificate?: string
}

export interface SamlTestUser {
  username: string
  password: string
  /** Attributes by the name sent, e.g. `{ mail: ['ada@example.com'], displayName: ['Ada'], groups: ['staff'] }`. */
  attributes: Record<string, string[]>
}

export interface SamlSignIn {
  /** The `SAMLResponse` field of SimpleSAMLphp's auto-submitting form, base64 as posted. */
  samlResponse: string
  /** The same response, decoded: the XML document. */
  responseXml: string
  /** The `RelayState` field, when the request had one. */
  relayState: string | undefined
  /** Where the form posts: the ACS URL. */
  acsUrl: string
  /** `Set-Cookie` headers answered by hosts other than SimpleSAMLphp on the way (the product's start). */
  cookies: string[]
}

export interface SimpleSamlPhp {
  /** Its base URL, `http://127.0.0.1:<port>`. */
  url: string
  /** Its entity ID, which is also its metadata URL. */
  entityId: string
  metadataUrl: string
  /** Its IdP metadata, to paste in the product's admin form. */
  metadataXml: string
  /** Its signing certificate and private key (PEM), made for this run. */
  certificate: string
  privateKey: string
  /** Adds (or replaces, by entity ID) a service provider it answers; takes effect at once. */
  addServiceProvider(sp: SamlServiceProvider): void
  /** Adds (or replaces, by username) a person who can sign in; takes effect at once. */
  addUser(user: SamlTestUser): void
  /**
   * Signs `username` in over HTTP, as a browser without JavaScript would: follows
   * `authnRequestUrl` (SimpleSAMLphp's SSO URL with a `SAMLRequest`, or the product's start URL
   * that redirects there) to the login form, posts it, and returns the auto-submitting form's
   * fields without posting them. Every call starts with no SimpleSAMLphp session.
   */
  signIn(authnRequestUrl: string, username: string, password: string): Promise<SamlSignIn>
  /** What PHP's web server and SimpleSAMLphp printed (shown when a test fails). */
  output(): string
  stop(): Promise<void>
}

function run(command: string, args: string[], env?: NodeJS.ProcessEnv): { ok: boolean; output: string } {
  try {
    return { ok: true, output: execFileSync(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 }).toString() }
  } catch (error) {
    return { ok: false, output: String((error as { stderr?: Buffer }).stderr ?? error) }
  }
}

let phpEnvironment: NodeJS.ProcessEnv | undefined
/** The environment PHP runs in: with the unpacked php-xml when PHP lacks DOM and it is there. */
function phpEnv(): NodeJS.ProcessEnv {
  if (phpEnvironment) return phpEnvironment
  const hasDom = (env: NodeJS.ProcessEnv) => run(PHP, ['-r', 'exit(extension_loaded("dom") ? 0 : 1);'], env).ok
  phpEnvironment = process.env
  // An empty entry keeps PHP's own directory of .ini files, beside the cache's.
  if (!process.env.PHP_INI_SCAN_DIR && !hasDom(process.env) && fs.existsSync(PHP_XML_CACHE)) phpEnvironment = { ...process.env, PHP_INI_SCAN_DIR: `:${PHP_XML_CACHE}` }
  return phpEnvironment
}

/** PHP as SimpleSAMLphp runs on it: the command, its environment, and SimpleSAMLphp's directory. */
export const php = () => ({ command: PHP, env: phpEnv(), simpleSamlPhpDir: SIMPLESAMLPHP_DIR })

let missingReason: string | null | undefined
/** Why SimpleSAMLphp cannot be run here, as a sentence to skip with; undefined when it can. */
export function simpleSamlPhpMissing(): string | undefined {
  if (missingReason !== undefined) return missingReason ?? undefined
  missingReason = null
  if (!fs.existsSync(path.join(SIMPLESAMLPHP_DIR, 'www/saml2/idp/SSOService.php')))
    missingReason = `no SimpleSAMLphp at ${SIMPLESAMLPHP_DIR} (apt-get install simplesamlphp, or set SIMPLESAMLPHP_DIR)`
  else if (!run(PHP, ['--version']).ok) missingReason = `no PHP command-line interpreter "${PHP}" (apt-get install php-cli, or set PHP)`
  else if (!run(PHP, ['-r', 'exit(extension_loaded("dom") ? 0 : 1);'], phpEnv()).ok)
    missingReason = `PHP has no DOM extension, which SimpleSAMLphp needs (apt-get install php-xml)`
  else if (!run(OPENSSL, ['version']).ok) missingReason = `no openssl command to make the identity provider's certificate (apt-get install openssl, or set OPENSSL)`
  return missingReason ?? undefined
}

export const simpleSamlPhpAvailable = (): boolean => simpleSamlPhpMissing() === undefined

/**
 * A new RSA key pair (node:crypto) and a self-signed certificate for it (the openssl command), both
 * PEM: the identity provider's, or a stranger's to sign a response with a key not in the metadata.
 */
export async function generateSigningKey(commonName: string): Promise<{ privateKey: string; certificate: string }> {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 })
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saml-key-'))
  try {
    fs.writeFileSync(path.join(dir, 'key.pem'), pem, { mode: 0o600 })
    const subject = `/CN=${commonName.replace(/[/=\\]/g, ' ')}`
    await promisify(execFile)(OPENSSL, [
      'req',
      '-x509',
      '-new',
      '-key',
      path.join(dir, 'key.pem'),
      '-sha256',
      '-days',
      '2',
      '-subj',
      subject,
      '-out',
      path.join(dir, 'cert.pem'),
    ])
    return { privateKey: pem, certificate: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8') }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** A PHP file that returns what a JSON file beside it holds (so that no value is written as PHP). */
const fromJson = (variable: string, file: string, extra = '') => `<?php
$${variable} = json_decode(file_get_contents(__DIR__ . '/${file}'), true, 512, JSON_THROW_ON_ERROR);
${extra}`

/** The base64 body of a PEM certificate, as SAML metadata holds it. */
const certificateData = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '')

export async function startSimpleSamlPhp(options: { sp?: SamlServiceProvider | SamlServiceProvider[]; users?: SamlTestUser[] } = {}): Promise<SimpleSamlPhp> {
  const missing = simpleSamlPhpMissing()
  if (missing) throw new Error(`SimpleSAMLphp cannot run here: ${missing}`)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simplesamlphp-'))
  const stopped = { done: false }
  try {
    return await start(dir, options, stopped)
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

async function start(
  dir: string,
  options: { sp?: SamlServiceProvider | SamlServiceProvider[]; users?: SamlTestUser[] },
  stopped: { done: boolean },
): Promise<SimpleSamlPhp> {
  const config = path.join(dir, 'config')
  const metadata = path.join(dir, 'metadata')
  for (const sub of [config, metadata, 'cert', 'tmp', 'sessions', 'data', 'log']) fs.mkdirSync(path.resolve(dir, sub), { recursive: true })
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const entityId = `${url}/saml2/idp/metadata.php`

  // The key pair of this run, and a self-signed certificate for it.
  const { privateKey: keyPem, certificate } = await generateSigningKey('SimpleSAMLphp test identity provider')
  const keyFile = path.join(dir, 'cert', 'idp.key')
  const certFile = path.join(dir, 'cert', 'idp.crt')
  fs.writeFileSync(keyFile, keyPem, { mode: 0o600 })
  fs.writeFileSync(certFile, certificate)

  const writeJson = (file: string, value: unknown) => {
    // Written whole then renamed: PHP reads these files at every request.
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(value))
    fs.renameSync(`${file}.tmp`, file)
  }
  writeJson(path.join(config, 'config.json'), {
    baseurlpath: `${url}/`,
    certdir: path.join(dir, 'cert') + '/',
    loggingdir: path.join(dir, 'log') + '/',
    datadir: path.join(dir, 'data') + '/',
    tempdir: path.join(dir, 'tmp') + '/',
    metadatadir: metadata + '/',
    secretsalt: crypto.randomBytes(24).toString('hex'),
    'auth.adminpassword': crypto.randomBytes(24).toString('hex'),
    technicalcontact_name: 'Tests',
    technicalcontact_email: 'tests@example.com',
    timezone: 'UTC',
    'admin.checkforupdates': false,
    'logging.handler': 'stderr',
    'enable.saml20-idp': true,
    'module.enable': { exampleauth: true, core: true, saml: true, admin: true },
    'store.type': 'phpsession',
    'session.phpsession.savepath': path.join(dir, 'sessions'),
    // Plain HTTP on loopback: its cookies cannot be Secure, nor SameSite=None.
    'session.cookie.secure': false,
    'session.cookie.samesite': null,
    'language.default': 'en',
    'language.available': ['en'],
  })
  fs.writeFileSync(path.join(config, 'config.php'), fromJson('config', 'config.json', `$config['logging.level'] = SimpleSAML\\Logger::NOTICE;\n`))

  const users = new Map<string, SamlTestUser>()
  const writeUsers = () =>
    writeJson(path.join(config, 'authsources.json'), {
      admin: ['core:AdminPassword'],
      // A PHP array of an entry 0 (the module) and 'username:password' => attributes.
      'test-users': {
        0: 'exampleauth:UserPass',
        ...Object.fromEntries([...users.values()].map((user) => [`${user.username}:${user.password}`, { uid: [user.username], ...user.attributes }])),
      },
    })
  fs.writeFileSync(path.join(config, 'authsources.php'), fromJson('config', 'authsources.json'))

  writeJson(path.join(metadata, 'idp-hosted.json'), {
    __DYNAMIC: {
      host: '__DEFAULT__',
      privatekey: keyFile,
      certificate: certFile,
      auth: 'test-users',
      // The persistent NameID is made from this attribute, the service provider and a secret salt.
      'userid.attribute': 'uid',
      'signature.algorithm': SAML.rsaSha256,
      'saml20.sign.response': true,
      'saml20.sign.assertion': true,
      NameIDFormat: SAML.persistent,
      'attributes.NameFormat': 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
    },
  })
  fs.writeFileSync(path.join(metadata, 'saml20-idp-hosted.php'), fromJson('hosted', 'idp-hosted.json', `$metadata['__DYNAMIC:1__'] = $hosted['__DYNAMIC'];\n`))

  const serviceProviders = new Map<string, SamlServiceProvider>()
  const writeServiceProviders = () =>
    writeJson(
      path.join(metadata, 'sp-remote.json'),
      Object.fromEntries(
        [...serviceProviders.values()].map((sp) => [
          sp.entityId,
          {
            AssertionConsumerService: [{ Binding: SAML.postBinding, Location: sp.acsUrl, index: 0 }],
            NameIDFormat: sp.nameIdFormat ?? SAML.persistent,
            'signature.algorithm': sp.signatureAlgorithm ?? SAML.rsaSha256,
            'saml20.sign.response': sp.signResponse ?? true,
            'saml20.sign.assertion': sp.signAssertion ?? true,
            ...(sp.encryptionCertificate ? { 'assertion.encryption': true, certData: certificateData(sp.encryptionCertificate) } : {}),
          },
        ]),
      ),
    )
  fs.writeFileSync(path.join(metadata, 'saml20-sp-remote.php'), fromJson('metadata', 'sp-remote.json'))

  const addServiceProvider = (sp: SamlServiceProvider) => {
    serviceProviders.set(sp.entityId, sp)
    writeServiceProviders()
  }
  const addUser = (user: SamlTestUser) => {
    users.set(user.username, user)
    writeUsers()
  }
  writeServiceProviders()
  writeUsers()
  for (const sp of [options.sp ?? []].flat()) addServiceProvider(sp)
  for (const user of options.users ?? []) addUser(user)

  const server = await startSupervised({
    name: 'SimpleSAMLphp',
    command: PHP,
    args: ['-S', `127.0.0.1:${port}`, '-t', path.join(SIMPLESAMLPHP_DIR, 'www')],
    env: { ...phpEnv(), SIMPLESAMLPHP_CONFIG_DIR: config },
    port,
  })
  const stop = async () => {
    if (stopped.done) return
    stopped.done = true
    await server.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    const answer = await fetch(entityId)
    const metadataXml = await answer.text()
    if (!answer.ok || !metadataXml.includes('IDPSSODescriptor')) throw new Error(`SimpleSAMLphp gave no metadata (${answer.status}):\n${metadataXml}\n${server.output()}`)
    return {
      url,
      entityId,
      metadataUrl: entityId,
      metadataXml,
      certificate,
      privateKey: keyPem,
      addServiceProvider,
      addUser,
      signIn: (authnRequestUrl, username, password) => signIn(url, authnRequestUrl, username, password, server.output),
      output: server.output,
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** The fields of a page's first form that has `field`, and where it posts. */
function formWith(html: string, pageUrl: string, field: string): { action: string; fields: Record<string, string> } | undefined {
  const { document } = new JSDOM(html).window
  const form = [...document.forms].find((candidate) => candidate.elements.namedItem(field))
  if (!form) return undefined
  const fields: Record<string, string> = {}
  for (const input of form.querySelectorAll('input[name]')) fields[input.getAttribute('name')!] = (input as HTMLInputElement).value
  return { action: new URL(form.getAttribute('action') ?? '', pageUrl).toString(), fields }
}

/** The text of a SimpleSAMLphp page, for an error. */
const pageText = (html: string) => new JSDOM(html).window.document.body?.textContent?.replace(/\s+/g, ' ').trim().slice(0, 2000) ?? html

async function signIn(idpUrl: string, authnRequestUrl: string, username: string, password: string, output: () => string): Promise<SamlSignIn> {
  const idpOrigin = new URL(idpUrl).origin
  const jar = new Map<string, string>()
  const cookies: string[] = []
  let passwordPosted = false
  let next: { url: string; body?: URLSearchParams } = { url: authnRequestUrl }
  for (let step = 0; step < 20; step++) {
    const origin = new URL(next.url).origin
    const headers: Record<string, string> = {}
    if (origin === idpOrigin && jar.size > 0) headers.cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
    const answer = await fetch(next.url, { method: next.body ? 'POST' : 'GET', headers, body: next.body, redirect: 'manual' })
    for (const cookie of answer.headers.getSetCookie()) {
      if (origin !== idpOrigin) cookies.push(cookie)
      else {
        const [pair] = cookie.split(';')
        const at = pair!.indexOf('=')
        jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim())
      }
    }
    const location = answer.headers.get('location')
    if (answer.status >= 300 && answer.status < 400 && location) {
      next = { url: new URL(location, next.url).toString() }
      continue
    }
    const html = await answer.text()
    const response = formWith(html, next.url, 'SAMLResponse')
    if (response) {
      const samlResponse = response.fields.SAMLResponse!
      return { samlResponse, responseXml: Buffer.from(samlResponse, 'base64').toString('utf8'), relayState: response.fields.RelayState, acsUrl: response.action, cookies }
    }
    const login = formWith(html, next.url, 'password')
    if (login && !passwordPosted) {
      passwordPosted = true
      next = { url: login.action, body: new URLSearchParams({ ...login.fields, username, password }) }
      continue
    }
    if (login) throw new Error(`SimpleSAMLphp refused the password of ${username}: ${pageText(html)}`)
    throw new Error(`SimpleSAMLphp answered ${answer.status} at ${next.url}: ${pageText(html)}\n${output().slice(-5000)}`)
  }
  throw new Error(`more than 20 redirects from ${authnRequestUrl}`)
}
