// A sample app that lets people "Sign in with Accounts" (docs/sign-in-with-accounts.md).
// Plain Node.js, with openid-client (an OpenID Certified relying party) and jose, nothing else:
//
//   CLIENT_ID=app_… CLIENT_SECRET=… node docs/examples/sample-app.mjs
//
// Settings: ISSUER (default http://localhost:3000/oidc), CLIENT_ID, CLIENT_SECRET (leave it out for
// a public application: PKCE alone), PORT (default 4000). Register the application with the
// redirect URI http://localhost:PORT/callback, the post-logout redirect URI http://localhost:PORT/
// and the back-channel logout URI http://localhost:PORT/backchannel-logout.
// Sessions live in memory: restarting the app signs everyone out of it.
import crypto from 'node:crypto'
import http from 'node:http'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import * as oidc from 'openid-client'

const ISSUER = process.env.ISSUER ?? 'http://localhost:3000/oidc'
const CLIENT_ID = process.env.CLIENT_ID
const CLIENT_SECRET = process.env.CLIENT_SECRET || undefined
const PORT = Number(process.env.PORT ?? 4000)
const BASE = `http://localhost:${PORT}`
const SCOPE = 'openid profile email roles offline_access'
const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout'
if (!CLIENT_ID) throw new Error('Set CLIENT_ID (and CLIENT_SECRET for a confidential application).')

// Discovery: every endpoint, and the keys, come from ISSUER/.well-known/openid-configuration.
const config = await oidc.discovery(new URL(ISSUER), CLIENT_ID, CLIENT_SECRET, CLIENT_SECRET ? oidc.ClientSecretBasic(CLIENT_SECRET) : oidc.None(), {
  // http is for a provider on this machine only; in production the issuer is https.
  execute: new URL(ISSUER).protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
})
const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri))
console.log(`Discovered ${config.serverMetadata().issuer} as ${CLIENT_ID} (${CLIENT_SECRET ? 'confidential' : 'public'} app)`)

/** Browser sessions by cookie: { pending: { verifier, state, nonce } } while signing in, then { claims, tokens, idToken, sid }. */
const sessions = new Map()

function sessionOf(request, response, create = true) {
  const id = /(?:^|;\s*)sample_session=([\w-]+)/.exec(request.headers.cookie ?? '')?.[1]
  if (id && sessions.has(id)) return { id, session: sessions.get(id) }
  if (!create) return { id: null, session: {} }
  const fresh = crypto.randomBytes(24).toString('base64url')
  sessions.set(fresh, {})
  response.setHeader('Set-Cookie', `sample_session=${fresh}; Path=/; HttpOnly; SameSite=Lax`)
  return { id: fresh, session: sessions.get(fresh) }
}

const escape = (value) => String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const page = (response, body, status = 200) =>
  response
    .writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' })
    .end(`<!doctype html><html lang="en"><meta charset="utf-8"><link rel="icon" href="data:,"><title>Sample app</title><body>${body}</body></html>`)
const redirect = (response, location) => response.writeHead(303, { Location: String(location) }).end()

async function home(request, response) {
  const { id, session } = sessionOf(request, response, false)
  if (!session.claims) return page(response, '<h1>Sample app</h1><p>You are signed out.</p><p><a href="/login">Sign in with Accounts</a></p>')
  try {
    // UserInfo on every visit: a removed access, a suspended account or a revoked token shows at once.
    session.userinfo = await oidc.fetchUserInfo(config, session.tokens.access_token, session.claims.sub)
  } catch {
    try {
      // The access token expired (or was revoked): a refresh token, rotated on every use, gets a new one.
      session.tokens = await oidc.refreshTokenGrant(config, session.tokens.refresh_token)
      session.idToken = session.tokens.id_token ?? session.idToken
      session.userinfo = await oidc.fetchUserInfo(config, session.tokens.access_token, session.claims.sub)
      console.log(`Refreshed the tokens of ${session.claims.email}`)
    } catch (error) {
      console.log(`Access of ${session.claims.email} ended (${error.error ?? error.message}): signed out here`)
      sessions.delete(id)
      return page(response, '<h1>Sample app</h1><p>You are signed out: your access ended.</p><p><a href="/login">Sign in with Accounts</a></p>')
    }
  }
  const rows = Object.entries({ ...session.claims, ...session.userinfo })
    .map(([name, value]) => `<tr><th>${escape(name)}</th><td><code>${escape(JSON.stringify(value))}</code></td></tr>`)
    .join('')
  page(
    response,
    `<h1>Sample app</h1><p>Signed in as ${escape(session.userinfo.name ?? session.claims.sub)}</p><table>${rows}</table><p><a href="/logout">Sign out</a></p>`,
  )
}

async function login(request, response) {
  const { session } = sessionOf(request, response)
  const pending = { verifier: oidc.randomPKCECodeVerifier(), state: oidc.randomState(), nonce: oidc.randomNonce() }
  session.pending = pending
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: `${BASE}/callback`,
    scope: SCOPE,
    code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  })
  console.log(`Sending the browser to ${url.origin}${url.pathname}`)
  redirect(response, url)
}

async function callback(request, response) {
  const { session } = sessionOf(request, response)
  const { pending } = session
  if (!pending) return page(response, '<p>No sign-in in progress. <a href="/">Start again</a></p>', 400)
  delete session.pending
  try {
    // Checks state, exchanges the code with the PKCE verifier, validates the ID token (signature, iss, aud, nonce).
    const tokens = await oidc.authorizationCodeGrant(config, new URL(request.url, BASE), {
      pkceCodeVerifier: pending.verifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
    })
    Object.assign(session, { tokens, idToken: tokens.id_token, claims: tokens.claims(), sid: tokens.claims().sid })
    console.log(`Signed in: ${session.claims.email} (sub ${session.claims.sub}, amr ${session.claims.amr?.join('+')}, sid ${session.sid})`)
    redirect(response, '/')
  } catch (error) {
    console.log(`Sign-in failed: ${error.error ?? error.message}`)
    page(response, `<p>Sign-in failed: ${escape(error.error_description ?? error.error ?? error.message)}. <a href="/">Back</a></p>`, 400)
  }
}

function logout(request, response) {
  const { id, session } = sessionOf(request, response, false)
  sessions.delete(id)
  if (!session.tokens) return redirect(response, '/')
  console.log(`Signing ${session.claims.email} out, here and at the provider`)
  redirect(response, oidc.buildEndSessionUrl(config, { id_token_hint: session.idToken, post_logout_redirect_uri: `${BASE}/` }))
}

async function backchannelLogout(request, response) {
  let body = ''
  for await (const chunk of request) body += chunk
  try {
    const token = new URLSearchParams(body).get('logout_token') ?? ''
    const { payload } = await jwtVerify(token, jwks, {
      issuer: config.serverMetadata().issuer,
      audience: CLIENT_ID,
      typ: 'logout+jwt',
      requiredClaims: ['iat', 'jti', 'events'],
    })
    if (typeof payload.events?.[BACKCHANNEL_EVENT] !== 'object' || 'nonce' in payload || !(payload.sid || payload.sub)) throw new Error('not a logout token')
    let ended = 0
    for (const [id, session] of sessions) {
      if (session.claims && (payload.sid ? session.sid === payload.sid : session.claims.sub === payload.sub)) ended += sessions.delete(id) ? 1 : 0
    }
    console.log(`Back-channel logout for sid ${payload.sid ?? '-'} (sub ${payload.sub ?? '-'}): ${ended} session(s) ended`)
    response.writeHead(200, { 'Cache-Control': 'no-store' }).end()
  } catch (error) {
    console.log(`Refused a back-channel logout: ${error.message}`)
    response.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'invalid_request' }))
  }
}

http
  .createServer((request, response) => {
    const { pathname } = new URL(request.url, BASE)
    const route =
      request.method === 'POST'
        ? { '/backchannel-logout': backchannelLogout }[pathname]
        : { '/': home, '/login': login, '/callback': callback, '/logout': logout }[pathname]
    if (!route) return page(response, '<p>Not found</p>', 404)
    Promise.resolve(route(request, response)).catch((error) => {
      console.error(error)
      if (!response.headersSent) page(response, '<p>Something went wrong.</p>', 500)
    })
  })
  .listen(PORT, () => console.log(`Sample app listening: open ${BASE}`))
