/**
 * The least a provider sign-in can cost a server under the contract's design (section 10), run by
 * the federation benchmark beside the product and the bare password sign-in
 * (bare-sign-in-server.ts) to tell what this machine allows from what the product costs. node:http,
 * no framework, validation, cookies, access token, logging or headers; PKCE, state and nonce kept
 * server-side; the linked-account case only. Per sign-in:
 * - `GET /start?login_hint=` (not measured by the benchmark): one statement stores the transaction,
 *   then a redirect to the upstream.
 * - `GET /callback?code&state` (measured): one statement claims the transaction; one POST to the
 *   upstream's token endpoint on a kept-alive connection; the ID token's RS256 signature, issuer,
 *   audience, expiry and nonce checked with `jose` against the upstream's keys fetched once; one
 *   statement stores the handoff with the account the identity `(provider, subject)` is linked to.
 * - `POST /complete` `{"handoff"}` (measured): one statement claims the handoff; one call of the
 *   product's `start_session` (session, refresh token, activity entry), named as the product runs it.
 * A child process: `fork` it with `--import tsx`, PORT, DATABASE_URL, ISSUER, CLIENT_ID,
 * CLIENT_SECRET and PROVIDER_ID (the product's provider, whose links it reads) in its environment;
 * it sends 'ready' once it listens.
 */
import crypto from 'node:crypto'
import http from 'node:http'
import { createLocalJWKSet, jwtVerify } from 'jose'
import pg from 'pg'

const env = (name: string) => process.env[name] ?? ''
const port = Number(env('PORT'))
const issuer = env('ISSUER')
const clientId = env('CLIENT_ID')
const redirectUri = `http://localhost:${port}/callback`
const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(env('CLIENT_SECRET'))}`).toString('base64')}`
const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 10 })
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })
const DAY = 86_400_000

// Named, as the product runs its statements (docs/decisions/0009).
const STORE = { name: 'bare_store', text: 'INSERT INTO bare_federation (state, nonce, code_verifier, created_at) VALUES ($1, $2, $3, now())' }
const CLAIM = {
  name: 'bare_claim',
  text: "UPDATE bare_federation SET callback_at = now() WHERE state = $1 AND callback_at IS NULL AND created_at > now() - interval '10 minutes' RETURNING nonce, code_verifier",
}
const HANDOFF = {
  name: 'bare_handoff',
  text: 'UPDATE bare_federation SET handoff = $2, user_id = (SELECT user_id FROM federated_identities WHERE provider_id = $3 AND subject = $4) WHERE state = $1 RETURNING user_id',
}
const COMPLETE = { name: 'bare_complete', text: "DELETE FROM bare_federation WHERE handoff = $1 AND callback_at > now() - interval '1 minute' RETURNING user_id" }
const START_SESSION = { name: 'start_session', text: 'SELECT start_session($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL) AS id' }

const random = () => crypto.randomBytes(32).toString('base64url')

/** A request to the upstream, on the kept-alive agent: its status and JSON body. */
function upstream(method: string, address: string, body?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json' }
    if (body !== undefined)
      Object.assign(headers, { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), authorization: basic })
    const request = http.request(address, { method, agent, headers }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }))
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end(body)
  })
}

const discovery = (await upstream('GET', `${issuer}/.well-known/openid-configuration`)).json
const keys = createLocalJWKSet((await upstream('GET', String(discovery.jwks_uri))).json as never)
const tokenEndpoint = String(discovery.token_endpoint)
const authorizationEndpoint = String(discovery.authorization_endpoint)

await pool.query(`CREATE TABLE IF NOT EXISTS bare_federation (
  state text PRIMARY KEY, nonce text NOT NULL, code_verifier text NOT NULL, created_at timestamptz NOT NULL,
  callback_at timestamptz, handoff text UNIQUE, user_id uuid)`)

async function start(url: URL): Promise<string> {
  const state = random()
  const nonce = random()
  const verifier = random()
  await pool.query({ ...STORE, values: [state, nonce, verifier] })
  const to = new URL(authorizationEndpoint)
  to.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: crypto.createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    login_hint: url.searchParams.get('login_hint') ?? '',
  }).toString()
  return to.href
}

/** The callback: the handoff code, or null when anything fails. */
async function callback(url: URL): Promise<string | null> {
  const state = url.searchParams.get('state') ?? ''
  const code = url.searchParams.get('code') ?? ''
  if (url.searchParams.get('iss') !== issuer) return null
  const claimed = (await pool.query<{ nonce: string; code_verifier: string }>({ ...CLAIM, values: [state] })).rows[0]
  if (!claimed) return null
  const exchanged = await upstream(
    'POST',
    tokenEndpoint,
    new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: claimed.code_verifier }).toString(),
  )
  if (exchanged.status !== 200 || typeof exchanged.json.id_token !== 'string') return null
  const { payload } = await jwtVerify(exchanged.json.id_token, keys, { issuer, audience: clientId, algorithms: ['RS256'] })
  if (payload.nonce !== claimed.nonce || !payload.sub) return null
  const handoff = random()
  const stored = (await pool.query<{ user_id: string | null }>({ ...HANDOFF, values: [state, handoff, env('PROVIDER_ID'), payload.sub] })).rows[0]
  return stored?.user_id ? handoff : null
}

async function complete(handoff: string): Promise<boolean> {
  const claimed = (await pool.query<{ user_id: string }>({ ...COMPLETE, values: [handoff] })).rows[0]
  if (!claimed) return false
  const now = Date.now()
  const token = crypto.createHash('sha256').update(crypto.randomBytes(32)).digest()
  await pool.query({
    ...START_SESSION,
    values: [claimed.user_id, '127.0.0.1', null, new Date(now), new Date(now + 7 * DAY), new Date(now + 30 * DAY), token, 'logged in', 'Logged in'],
  })
  return true
}

function answer(response: http.ServerResponse, status: number, headers: http.OutgoingHttpHeaders, text = ''): void {
  response.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(text) })
  response.end(text)
}

const server = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', redirectUri)
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (chunk: string) => (body += chunk))
  request.on('end', () => {
    const work =
      url.pathname === '/start'
        ? start(url).then((to) => answer(response, 302, { location: to }))
        : url.pathname === '/callback'
          ? callback(url).then((handoff) => answer(response, 302, { location: handoff ? `/login/complete#handoff=${handoff}` : '/login?error=failed' }))
          : complete((JSON.parse(body) as { handoff: string }).handoff).then((done) =>
              answer(response, done ? 200 : 400, { 'content-type': 'application/json' }, JSON.stringify({ success: done })),
            )
    work.catch(() => answer(response, 500, {}))
  })
})
server.listen(port, '127.0.0.1', () => process.send?.('ready'))
process.on('disconnect', () => {
  server.close()
  agent.destroy()
  void pool.end()
})
