// Signs a person in to a command-line tool with the device flow (RFC 8628, docs/automating.md):
// the tool prints an address and a code, the person opens it in any browser (their phone will do),
// checks the code, signs in to Accounts and allows the tool; the tool, polling meanwhile, gets an
// ID token and an access token and says who signed in.
//
//   npm install openid-client
//   CLIENT_ID=app_… node docs/examples/device-sign-in.mjs
//
// Settings: APP_URL (default http://localhost:3000), CLIENT_ID (an application with "Device
// sign-in" on: Admin → Applications; a public one needs no secret), CLIENT_SECRET (a confidential
// one's secret), SCOPE (default "openid profile email").
import * as client from 'openid-client'

const APP_URL = (process.env.APP_URL ?? 'http://localhost:3000').replace(/\/$/, '')
const { CLIENT_ID, CLIENT_SECRET } = process.env
if (!CLIENT_ID) throw new Error('Set CLIENT_ID to the client id of an application with device sign-in on.')

const issuer = new URL(`${APP_URL}/oidc`)
const config = await client.discovery(
  issuer,
  CLIENT_ID,
  CLIENT_SECRET ? { client_secret: CLIENT_SECRET } : {},
  CLIENT_SECRET ? client.ClientSecretBasic(CLIENT_SECRET) : client.None(),
  // A laptop's APP_URL is plain http; a real one is https and needs no such permission.
  issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined,
)

const started = await client.initiateDeviceAuthorization(config, { scope: process.env.SCOPE ?? 'openid profile email' })
console.log(`Open ${started.verification_uri} and type the code ${started.user_code}`)
console.log(`(or open ${started.verification_uri_complete})`)
console.log(`The code is good for ${Math.round(started.expires_in / 60)} minutes.`)

try {
  // Polls every `interval` seconds (5), slowing down when told `slow_down`.
  const tokens = await client.pollDeviceAuthorizationGrant(config, started)
  const claims = tokens.claims()
  console.log(`Signed in as ${claims?.name ?? claims?.sub}${claims?.email ? ` <${claims.email}>` : ''}`)
  const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub)
  console.log(JSON.stringify(info, null, 2))
} catch (error) {
  // access_denied: the person denied; expired_token: nobody answered in time.
  console.error(`Not signed in: ${error.error ?? error.message}`)
  process.exit(1)
}
