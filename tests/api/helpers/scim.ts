import type { TestApp } from '../../support/test-app'
import { as, expectSuccess } from './requests'
import { quickSignIn } from './users'

/**
 * A SCIM client for the tests: an API key of a service application (named as the directory it
 * stands for) with the `scim` scope, or the scopes given, made through the admin API; and requests
 * in `application/scim+json` with it as the bearer.
 */
export async function scimCredential(t: TestApp, name: string, scopes: string[] = ['scim']): Promise<string> {
  const admin = await quickSignIn(t, { role: 'ADMIN', name: `${name} Admin` })
  const application = expectSuccess(await as(t, admin).post('/api/admin/applications', { name, type: 'service', scopes }), 201).data.application as { id: string }
  const key = expectSuccess(await as(t, admin).post(`/api/admin/applications/${application.id}/keys`, { name: 'provisioning' }), 201).data as { secret: string }
  return key.secret
}

export function scimRequest(t: TestApp, secret: string) {
  const send = (method: string, path: string, body?: unknown) =>
    t.request(method, `/scim/v2${path}`, {
      headers: { authorization: `Bearer ${secret}`, ...(body !== undefined ? { 'content-type': 'application/scim+json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    })
  return {
    get: (path: string) => send('GET', path),
    post: (path: string, body: unknown) => send('POST', path, body),
    put: (path: string, body: unknown) => send('PUT', path, body),
    patch: (path: string, body: unknown) => send('PATCH', path, body),
    delete: (path: string) => send('DELETE', path),
  }
}
