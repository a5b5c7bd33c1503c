// Replays Microsoft Entra ID's provisioning cycle against a running Accounts
// (docs/provisioning-from-a-directory.md), with the request bodies Entra ID sends, and checks each
// answer: a person is looked up, created, found, updated, signs in (a password chosen through
// "Forgot password", read from the outbox), is deactivated (their open session dies at once),
// reactivated and deleted. Plain Node.js 22 or later, nothing to install:
//
//   SCIM_KEY=acc_sk_… node docs/examples/scim-entra-cycle.mjs
//
// Settings: APP_URL (default http://localhost:3000), SCIM_KEY (an API key of a service application
// with the scim scope: Admin → Applications), DATA_DIR (default ./data: the outbox of a server
// without SMTP_URL, where the reset link is read). Exits 1 at the first answer that is not right.
import fs from 'node:fs'
import path from 'node:path'

const APP_URL = (process.env.APP_URL ?? 'http://localhost:3000').replace(/\/$/, '')
const SCIM_KEY = process.env.SCIM_KEY
const OUTBOX = path.join(process.env.DATA_DIR ?? 'data', 'outbox')
const BASE = `${APP_URL}/scim/v2`
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
if (!SCIM_KEY) throw new Error('Set SCIM_KEY to an API key of a service application with the scim scope.')

function check(condition, what) {
  if (!condition) {
    console.error(`✗ ${what}`)
    process.exit(1)
  }
  console.log(`✓ ${what}`)
}

async function scim(method, resource, body) {
  const response = await fetch(`${BASE}${resource}`, {
    method,
    headers: { authorization: `Bearer ${SCIM_KEY}`, ...(body ? { 'content-type': 'application/scim+json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

async function api(method, route, body, token) {
  const response = await fetch(`${APP_URL}/api${route}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  return { status: response.status, body: await response.json().catch(() => undefined) }
}

/** The newest reset link mailed to `to`, waiting for the mail worker to write it. */
async function resetLinkFor(to, since) {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const files = fs.existsSync(OUTBOX) ? fs.readdirSync(OUTBOX).filter((name) => name.endsWith('.eml.json')) : []
    for (const name of files.sort().reverse()) {
      const mail = JSON.parse(fs.readFileSync(path.join(OUTBOX, name), 'utf8'))
      const link = mail.links.find((candidate) => candidate.includes('/reset-password?token='))
      if (mail.to === to && Date.parse(mail.date) >= since && link) return new URL(link).searchParams.get('token')
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return undefined
}

const run = Date.now().toString(36)
const userName = `Test_User_${run}@contoso.com`
const filter = (expression) => `/Users?filter=${encodeURIComponent(expression)}`

const config = await scim('GET', '/ServiceProviderConfig')
check(config.status === 200 && config.body.patch.supported, 'the service supports PATCH')

const lookup = await scim('GET', filter(`userName eq "${userName}"`))
check(lookup.status === 200 && lookup.body.totalResults === 0, 'Entra ID looks the person up: nobody yet')

const created = await scim('POST', '/Users', {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
  externalId: `ext-${run}`,
  userName,
  active: true,
  emails: [{ primary: true, type: 'work', value: userName }],
  meta: { resourceType: 'User' },
  name: { formatted: 'Jane Doe', familyName: 'Doe', givenName: 'Jane' },
  roles: [],
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Finance' },
})
check(created.status === 201 && created.body.active === true, `created ${userName} (201, active)`)
const id = created.body.id
const address = created.body.emails[0].value

const found = await scim('GET', filter(`externalId eq "ext-${run}"`))
check(found.body.totalResults === 1 && found.body.Resources[0].id === id, 'found by externalId')

const updated = await scim('PATCH', `/Users/${id}`, {
  schemas: [PATCH_OP],
  Operations: [
    { op: 'Replace', path: 'name.familyName', value: 'Smith' },
    { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber', value: '701984' },
  ],
})
check(updated.status === 200 && updated.body.name.formatted === 'Jane Smith', 'updated: Jane Smith')

// The person chooses a password through "Forgot password" and signs in.
const since = Date.now() - 1000
await api('POST', '/auth/forgot-password', { email: address })
const token = await resetLinkFor(address, since)
check(token, `a reset link in the outbox (${OUTBOX})`)
// Not made of the address's words: the password rules refuse those.
const password = 'Kept-Only-By-Jane-7!'
const reset = await api('POST', `/auth/reset-password/${encodeURIComponent(token)}`, { password, confirmPassword: password })
check(reset.status === 200, `password chosen (${reset.status} ${reset.body?.message ?? ''})`)
const login = await api('POST', '/auth/login', { email: address, password })
check(login.status === 200, 'signed in')
const session = login.body.data.accessToken
check((await api('GET', '/auth/me', undefined, session)).status === 200, 'the session works')

const deactivated = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] })
check(deactivated.status === 200 && deactivated.body.active === false, 'deactivated with active "False"')
check((await api('GET', '/auth/me', undefined, session)).status === 401, 'the open session died at once')

const reactivated = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] })
check(reactivated.body.active === true, 'reactivated with active "True"')

check((await scim('DELETE', `/Users/${id}`)).status === 204, 'deleted (204)')
check((await scim('GET', `/Users/${id}`)).status === 404, 'gone (404)')
console.log('Entra ID’s provisioning cycle: every answer as expected.')
