import crypto from 'node:crypto'
import * as client from 'openid-client'
import { beforeAll, describe, expect, it } from 'vitest'
import { API_SCOPE_NAMES, API_SCOPES, type ApiScope } from '~shared/scopes'
import { API_ACCESS } from '~shared/permissions'
import { type SignedIn, useTestApp } from '../support/test-app'
import { injectFetch } from '../support/oidc'
import { as, expectFailure, expectSuccess } from './helpers/requests'
import { quickSignIn, quickUser } from './helpers/users'

/**
 * Service applications (contract section 11): an admin registers one with scopes; it gets access
 * tokens by the client credentials grant (openid-client as the machine, with a client secret and
 * with private_key_jwt), or uses API keys, and calls exactly the admin API its scopes allow, its
 * changes named after it in the activity log. Every revocation holds at the next request.
 */
const t = useTestApp()

let admin: SignedIn
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
})

interface Service {
  id: string
  name: string
  clientSecret?: string
}

async function createService(body: Record<string, unknown> = {}): Promise<Service> {
  const response = await as(t, admin).post('/api/admin/applications', { name: 'Payroll Sync', type: 'service', scopes: ['users:read'], ...body })
  const data = expectSuccess(response, 201).data
  return { id: data.application.id, name: data.application.name, clientSecret: data.clientSecret }
}

async function createKey(applicationId: string, body: Record<string, unknown> = {}): Promise<{ key: Record<string, unknown> & { id: string }; secret: string }> {
  return expectSuccess(await as(t, admin).post(`/api/admin/applications/${applicationId}/keys`, { name: 'Nightly export', ...body }), 201).data
}

const apiResource = () => `${t.config.appUrl}/api`

async function machine(service: Service, auth: client.ClientAuth): Promise<client.Configuration> {
  const config = await client.discovery(new URL(`${t.config.appUrl}/oidc`), service.id, {}, auth, {
    execute: [client.allowInsecureRequests],
    [client.customFetch]: injectFetch(t.app),
  })
  config[client.customFetch] = injectFetch(t.app)
  return config
}

const bearer = (secret: string) => ({ headers: { authorization: `Bearer ${secret}` } })
const call = (secret: string, method: string, url: string, body?: unknown) => t.request(method, url, { ...bearer(secret), ...(body !== undefined ? { body } : {}) })

describe('registering a service application', () => {
  it('takes scopes and no redirect URIs, and shows its client secret once', async () => {
    const response = await as(t, admin).post('/api/admin/applications', { name: 'HR Sync', type: 'service', scopes: ['users:write', 'users:read'] })
    const { application, clientSecret } = expectSuccess(response, 201).data
    expect(application).toMatchObject({ type: 'service', scopes: ['users:read', 'users:write'], redirectUris: [], jwks: null, enabled: true })
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const listed = expectSuccess(await as(t, admin).get('/api/admin/applications')).data.applications
    expect(JSON.stringify(listed)).not.toContain(clientSecret)
  })

  it('refuses unknown scopes, an empty scope list, redirect URIs, scopes on other types and a key set that is not public keys', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'service', scopes: ['users:everything'] }, 'scopes.0'],
      [{ type: 'service', scopes: [] }, 'scopes'],
      [{ type: 'service' }, 'scopes'],
      [{ type: 'service', scopes: ['users:read'], redirectUris: ['https://hr.example.com/cb'] }, 'redirectUris'],
      [{ type: 'confidential', redirectUris: ['https://hr.example.com/cb'], scopes: ['users:read'] }, 'scopes'],
      [{ type: 'service', scopes: ['users:read'], jwks: { keys: [] } }, 'jwks'],
      [{ type: 'service', scopes: ['users:read'], jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, 'jwks'],
      [{ type: 'service', scopes: ['users:read'], jwks: { keys: [{ ...(privateJwk() as object) }] } }, 'jwks'],
      [{ type: 'service', scopes: ['users:read'], jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }] } }, 'jwks'],
    ]
    const before = await t.ctx.db
      .selectFrom('oidc_applications')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    for (const [body, field] of cases) {
      const failure = expectFailure(await as(t, admin).post('/api/admin/applications', { name: 'Bad Service', ...body }), 400)
      expect(
        failure.errors?.map((error) => error.field),
        JSON.stringify(body),
      ).toContain(field)
    }
    const after = await t.ctx.db
      .selectFrom('oidc_applications')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
  })
})

function ecKeyPair(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']) as Promise<CryptoKeyPair>
}

/** The OAuth error code a refused grant answered, whichever way openid-client reports it. */
async function grantError(grant: Promise<unknown>): Promise<string> {
  try {
    await grant
  } catch (error) {
    const failure = error as { error?: string; cause?: { parameters?: { error?: string } }[] | { error?: string } }
    if (failure.error) return failure.error
    if (Array.isArray(failure.cause)) return failure.cause[0]?.parameters?.error ?? 'unknown'
    return (failure.cause as { error?: string } | undefined)?.error ?? String(error)
  }
  return 'granted'
}

function privateJwk(): crypto.JsonWebKey {
  return crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })
}

describe('the client credentials grant, with openid-client as the machine', () => {
  it('gives a service application with a client secret a token for the admin API, carrying the scopes it asked for', async () => {
    const service = await createService({ scopes: ['users:read', 'activity:read'] })
    const config = await machine(service, client.ClientSecretBasic(service.clientSecret!))
    const all = await client.clientCredentialsGrant(config, { resource: apiResource() })
    expect(all.token_type.toLowerCase()).toBe('bearer')
    expect(all.scope?.split(' ').sort()).toEqual(['activity:read', 'users:read'])
    expect(all.refresh_token).toBeUndefined()
    expect(all.expires_in).toBeLessThanOrEqual(t.config.accessTokenTtl)

    const narrow = await client.clientCredentialsGrant(config, { scope: 'users:read' })
    expect(narrow.scope).toBe('users:read')
    expectSuccess(await call(narrow.access_token, 'GET', '/api/admin/users'))
    expectFailure(await call(narrow.access_token, 'GET', '/api/admin/activity-logs'), 403, undefined, 'INSUFFICIENT_SCOPE')
    expectSuccess(await call(all.access_token, 'GET', '/api/admin/activity-logs'))
  })

  it('signs a service application in with private_key_jwt against the key set given at creation; it has no client secret', async () => {
    const { publicKey, privateKey } = await ecKeyPair()
    const jwk = { ...(await crypto.subtle.exportKey('jwk', publicKey)), kid: 'payroll-1', alg: 'ES256', use: 'sig' }
    delete jwk.key_ops
    delete jwk.ext
    const service = await createService({ name: 'Key Sync', jwks: { keys: [jwk] } })
    expect(service.clientSecret).toBeUndefined()
    const config = await machine(service, client.PrivateKeyJwt({ key: privateKey, kid: 'payroll-1' }))
    const tokens = await client.clientCredentialsGrant(config, { scope: 'users:read' })
    expectSuccess(await call(tokens.access_token, 'GET', '/api/admin/users'))

    const stranger = (await ecKeyPair()).privateKey
    const forged = await machine(service, client.PrivateKeyJwt({ key: stranger, kid: 'payroll-1' }))
    expect(await grantError(client.clientCredentialsGrant(forged, { scope: 'users:read' }))).toBe('invalid_client')
    expectFailure(await as(t, admin).post(`/api/admin/applications/${service.id}/secret`, {}), 409)
  })

  it('answers invalid_scope for a scope not granted, known or not, and for an admin scope asked by an app that signs people in', async () => {
    const service = await createService()
    const config = await machine(service, client.ClientSecretBasic(service.clientSecret!))
    for (const scope of ['users:delete', 'users:read users:write', 'everything', 'openid']) {
      expect(await grantError(client.clientCredentialsGrant(config, { scope })), scope).toBe('invalid_scope')
    }
    const people = expectSuccess(
      await as(t, admin).post('/api/admin/applications', { name: 'Wiki', type: 'confidential', redirectUris: ['https://wiki.example.com/cb'] }),
      201,
    ).data
    const wiki = await machine({ id: people.application.id, name: 'Wiki' }, client.ClientSecretBasic(people.clientSecret))
    expect(await grantError(client.clientCredentialsGrant(wiki, { scope: 'users:read' }))).toBe('invalid_scope')
    const authorize = await t.request(
      'GET',
      `/oidc/auth?${new URLSearchParams({ client_id: people.application.id, redirect_uri: 'https://wiki.example.com/cb', response_type: 'code', scope: 'openid users:read', state: 's' })}`,
    )
    expect(authorize.headers.location).toContain('error=invalid_scope')
  })

  it('refuses a token at the next request once the application is disabled, its scope removed, or it is deleted', async () => {
    const service = await createService({ scopes: ['users:read', 'activity:read'] })
    const config = await machine(service, client.ClientSecretBasic(service.clientSecret!))
    const { access_token: token } = await client.clientCredentialsGrant(config, {})
    expectSuccess(await call(token, 'GET', '/api/admin/activity-logs'))

    expectSuccess(await as(t, admin).put(`/api/admin/applications/${service.id}`, { scopes: ['users:read'] }))
    expectFailure(await call(token, 'GET', '/api/admin/activity-logs'), 403, undefined, 'INSUFFICIENT_SCOPE')
    expectSuccess(await call(token, 'GET', '/api/admin/users'))

    expectSuccess(await as(t, admin).put(`/api/admin/applications/${service.id}`, { enabled: false }))
    expectFailure(await call(token, 'GET', '/api/admin/users'), 401)
    expect(await grantError(client.clientCredentialsGrant(config, {}))).toBe('invalid_client')
    expectSuccess(await as(t, admin).put(`/api/admin/applications/${service.id}`, { enabled: true }))
    const again = await client.clientCredentialsGrant(config, {})
    expectSuccess(await call(again.access_token, 'GET', '/api/admin/users'))

    expectSuccess(await as(t, admin).delete(`/api/admin/applications/${service.id}`))
    expectFailure(await call(again.access_token, 'GET', '/api/admin/users'), 401)
  })
})

describe('API keys', () => {
  it('lives from creation to deletion: shown once with a checksum, listed by prefix, used, last use written at most once a minute, deleted', async () => {
    const service = await createService({ scopes: ['users:read'] })
    const { key, secret } = await createKey(service.id)
    expect(secret).toMatch(/^acc_sk_[0-9A-Za-z]{49}$/)
    expect(key).toEqual({ id: expect.any(String), name: 'Nightly export', createdAt: expect.any(String), expiresAt: null, lastUsedAt: null, prefix: secret.slice(0, 12) })
    const stored = await t.ctx.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow()
    expect(stored.secret_hash.equals(crypto.createHash('sha256').update(secret).digest())).toBe(true)
    expect(JSON.stringify(stored)).not.toContain(secret)

    expectSuccess(await call(secret, 'GET', '/api/admin/users'))
    const firstUse = (await t.ctx.db.selectFrom('api_keys').select('last_used_at').where('id', '=', key.id).executeTakeFirstOrThrow()).last_used_at
    expect(firstUse).toEqual(t.clock.now())
    t.clock.advance(30)
    expectSuccess(await call(secret, 'GET', '/api/admin/users'))
    const listed = expectSuccess(await as(t, admin).get(`/api/admin/applications/${service.id}/keys`)).data.keys
    expect(listed).toEqual([{ ...key, lastUsedAt: firstUse!.toISOString() }])
    expect(JSON.stringify(listed)).not.toContain(secret.slice(12))
    t.clock.advance(31)
    expectSuccess(await call(secret, 'GET', '/api/admin/users'))
    expect((await t.ctx.db.selectFrom('api_keys').select('last_used_at').where('id', '=', key.id).executeTakeFirstOrThrow()).last_used_at).toEqual(t.clock.now())

    expectSuccess(await as(t, admin).delete(`/api/admin/applications/${service.id}/keys/${key.id}`))
    expectFailure(await call(secret, 'GET', '/api/admin/users'), 401, undefined, 'CREDENTIAL_INVALID')
    expectFailure(await as(t, admin).delete(`/api/admin/applications/${service.id}/keys/${key.id}`), 404, undefined, 'API_KEY_NOT_FOUND')
  })

  it('refuses an expired key, a key with a broken checksum, a key of a disabled or deleted application, and keys for other types', async () => {
    const service = await createService()
    const expiring = await createKey(service.id, { expiresAt: new Date(t.clock.now().getTime() + 60_000).toISOString() })
    expectSuccess(await call(expiring.secret, 'GET', '/api/admin/users'))
    t.clock.advance(61)
    expectFailure(await call(expiring.secret, 'GET', '/api/admin/users'), 401, undefined, 'CREDENTIAL_INVALID')
    expectFailure(await as(t, admin).post(`/api/admin/applications/${service.id}/keys`, { name: 'Past', expiresAt: '2020-01-01T00:00:00Z' }), 400)
    expectFailure(await as(t, admin).post(`/api/admin/applications/${service.id}/keys`, { name: '' }), 400)

    const { secret } = await createKey(service.id)
    const last = secret.at(-1) === 'A' ? 'B' : 'A'
    expectFailure(await call(secret.slice(0, -1) + last, 'GET', '/api/admin/users'), 401, undefined, 'CREDENTIAL_INVALID')
    expectSuccess(await as(t, admin).put(`/api/admin/applications/${service.id}`, { enabled: false }))
    expectFailure(await call(secret, 'GET', '/api/admin/users'), 401, undefined, 'CREDENTIAL_INVALID')
    expectSuccess(await as(t, admin).put(`/api/admin/applications/${service.id}`, { enabled: true }))
    expectSuccess(await call(secret, 'GET', '/api/admin/users'))
    expectSuccess(await as(t, admin).delete(`/api/admin/applications/${service.id}`))
    expectFailure(await call(secret, 'GET', '/api/admin/users'), 401, undefined, 'CREDENTIAL_INVALID')

    const wiki = expectSuccess(
      await as(t, admin).post('/api/admin/applications', { name: 'Wiki', type: 'public', redirectUris: ['https://wiki.example.com/cb'] }),
      201,
    ).data
    expectFailure(await as(t, admin).post(`/api/admin/applications/${wiki.application.id}/keys`, { name: 'No' }), 409, undefined, 'NOT_SERVICE_APPLICATION')
  })
})

describe('scopes per route', () => {
  /** Every admin call of the permission table, with a request that passes the guard. */
  const ADMIN_CALLS = Object.keys(API_ACCESS).filter((endpoint) => endpoint.includes(' /admin/'))

  it('lets each scope make exactly the calls the scope table gives it, with no CSRF header, and refuses every other admin call', async () => {
    const target = await quickUser(t, { name: 'Scope Target' })
    const keys = {} as Record<ApiScope, string>
    for (const scope of API_SCOPE_NAMES) {
      const service = await createService({ name: `Scope ${scope}`, scopes: [scope] })
      keys[scope] = (await createKey(service.id)).secret
    }
    for (const endpoint of ADMIN_CALLS) {
      const [method, pattern] = endpoint.split(' ') as [string, string]
      const url = `/api${pattern.replace(':id', target.id).replace(':keyId', crypto.randomUUID())}`
      for (const scope of API_SCOPE_NAMES) {
        const allowed = (API_SCOPES[scope].endpoints as readonly string[]).includes(endpoint)
        // A body that fails validation proves the guard let the call through (400), without changing anything.
        const response = await call(keys[scope], method, url, method === 'GET' || method === 'DELETE' ? undefined : { unexpected: true })
        if (allowed) {
          expect([200, 400, 404, 409], `${scope} ${endpoint}: ${response.body}`).toContain(response.statusCode)
        } else {
          expectFailure(response, 403, undefined, 'INSUFFICIENT_SCOPE')
        }
      }
    }
    // The target was only read, or refused: DELETE /admin/users/:id needs an INACTIVE user.
    expect(await t.ctx.db.selectFrom('users').select('id').where('id', '=', target.id).executeTakeFirst()).toBeDefined()
  })

  it("never gives a person's token a scope: a DEVELOPER's token stays refused on users:read calls", async () => {
    const developer = await quickSignIn(t, { role: 'DEVELOPER' })
    expectFailure(await as(t, developer).get('/api/admin/users'), 403, undefined, 'FORBIDDEN')
  })

  it("still asks a person's token for the CSRF header on writes", async () => {
    const target = await quickUser(t, { name: 'Csrf Target' })
    const response = await t.request('PUT', `/api/admin/users/${target.id}`, { token: admin.accessToken, body: { name: 'Changed' } })
    expectFailure(response, 403, undefined, 'CSRF_INVALID')
  })
})

describe('the machine as actor', () => {
  it('names the application on its changes: in the entry, in the logs, and under section 2 rules like an admin', async () => {
    const service = await createService({ name: 'Payroll Sync', scopes: ['users:read', 'users:write', 'users:delete', 'activity:read'] })
    const { secret } = await createKey(service.id)
    const invited = expectSuccess(
      await call(secret, 'POST', '/api/admin/users', { name: 'New Hire', email: `hire-${crypto.randomUUID()}@example.com`, role: 'CLIENT' }),
      201,
    ).data
    expectFailure(await call(secret, 'DELETE', `/api/admin/users/${invited.id}`), 409, undefined, 'NOT_INACTIVE')
    expectSuccess(await call(secret, 'PUT', `/api/admin/users/${invited.id}`, { status: 'INACTIVE' }))
    expectSuccess(await call(secret, 'DELETE', `/api/admin/users/${invited.id}`))
    expectFailure(await call(secret, 'DELETE', `/api/admin/users/${admin.id}`), 403, undefined, 'ADMIN_DELETE')

    const logs = expectSuccess(await call(secret, 'GET', `/api/admin/activity-logs?search=${encodeURIComponent('New Hire')}`)).data.activities
    expect(logs.length).toBeGreaterThanOrEqual(3)
    for (const entry of logs) expect(entry.actor).toEqual({ type: 'application', id: service.id, name: 'Payroll Sync' })
    expect(logs.map((entry: { activity: string }) => entry.activity)).toContain('Deleted user New Hire (' + invited.email + ')')
  })

  it('keeps the last active ADMIN when a machine demotes admins', async () => {
    const service = await createService({ name: 'Role Sync', scopes: ['users:read', 'users:write'] })
    const { secret } = await createKey(service.id)
    const admins = expectSuccess(await call(secret, 'GET', '/api/admin/users?role=ADMIN&status=ACTIVE&limit=100')).data.users as { id: string }[]
    let refused = 0
    for (const { id } of admins) {
      const response = await call(secret, 'PUT', `/api/admin/users/${id}`, { role: 'CLIENT' })
      if (response.statusCode === 409) refused += 1
    }
    expect(refused).toBe(1)
    const left = expectSuccess(await call(secret, 'GET', '/api/admin/users?role=ADMIN&status=ACTIVE')).data.pagination.total
    expect(left).toBe(1)
  })
})
