import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app'

/**
 * The SCIM service's discovery documents (contract section 13), open without credentials, in
 * `application/scim+json`, and its failures in SCIM's error form, never the API's envelope.
 */
const t = useTestApp()

const base = () => `${t.config.appUrl}/scim/v2`
const get = (path: string) => t.request('GET', `/scim/v2${path}`)

describe('discovery', () => {
  it('says exactly what is supported: PATCH and filters (200 at most), no bulk, sort, ETag or password change', async () => {
    const response = await get('/ServiceProviderConfig')
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('application/scim+json; charset=utf-8')
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.json()).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [{ type: 'oauthbearertoken', primary: true }],
      meta: { resourceType: 'ServiceProviderConfig', location: `${base()}/ServiceProviderConfig` },
    })
  })

  it('lists the User and Group resource types, and each by id', async () => {
    const list = (await get('/ResourceTypes')).json()
    expect(list).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 2 })
    expect(list.Resources.map((type: { id: string; endpoint: string }) => [type.id, type.endpoint])).toEqual([
      ['User', '/Users'],
      ['Group', '/Groups'],
    ])
    expect((await get('/ResourceTypes/Group')).json()).toMatchObject({ schema: 'urn:ietf:params:scim:schemas:core:2.0:Group' })
  })

  it('describes the User, Group and enterprise schemas, userName unique and roles read-only', async () => {
    const list = (await get('/Schemas')).json()
    expect(list.Resources.map((schema: { id: string }) => schema.id)).toEqual([
      'urn:ietf:params:scim:schemas:core:2.0:User',
      'urn:ietf:params:scim:schemas:core:2.0:Group',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
    ])
    const user = (await get('/Schemas/urn:ietf:params:scim:schemas:core:2.0:User')).json()
    const attribute = (name: string) => user.attributes.find((a: { name: string }) => a.name === name)
    expect(attribute('userName')).toMatchObject({ required: true, uniqueness: 'server', caseExact: false })
    expect(attribute('roles')).toMatchObject({ mutability: 'readOnly', multiValued: true })
    expect(attribute('password')).toMatchObject({ mutability: 'writeOnly', returned: 'never' })
  })
})

describe('failures', () => {
  it('answers an unknown schema, resource type or endpoint with a SCIM 404', async () => {
    for (const path of ['/Schemas/urn:nope', '/ResourceTypes/Device', '/Devices', '/']) {
      const response = await get(path)
      expect(response.statusCode).toBe(404)
      expect(response.headers['content-type']).toBe('application/scim+json; charset=utf-8')
      expect(response.json()).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '404' })
    }
  })
})
