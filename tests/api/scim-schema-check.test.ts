import SCIMMY from 'scimmy'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app'
import { scimCredential, scimRequest } from './helpers/scim'

/**
 * An independent check of the resources the service answers with: `scimmy`, a SCIM library of
 * its own, reads each through its definitions of RFC 7643's User and Group, and gives back the
 * same resource (every attribute known to it, of the type it expects, nothing dropped).
 */
const t = useTestApp()
let scim: ReturnType<typeof scimRequest>

beforeAll(async () => {
  scim = scimRequest(t, await scimCredential(t, 'Entra ID'))
})

const sorted = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sorted)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([key, inner]) => [key, sorted(inner)]),
        )
      : value

describe('resources as scimmy reads them', () => {
  it('Users, with every attribute the service fills', async () => {
    const created = await scim.post('/Users', {
      userName: `Schema.Check-${Date.now()}@Contoso.com`,
      externalId: 'ext-schema',
      name: { givenName: 'Schema', familyName: 'Check' },
      phoneNumbers: [{ value: '+1 555 0100', type: 'work' }],
    })
    const user = created.json()
    expect(sorted(JSON.parse(JSON.stringify(new SCIMMY.Schemas.User(user, 'out'))))).toEqual(sorted(user))
    const list = (await scim.get(`/Users?filter=${encodeURIComponent(`id eq "${user.id}"`)}`)).json()
    expect(sorted(JSON.parse(JSON.stringify(new SCIMMY.Messages.ListResponse(list))))).toMatchObject(sorted({ totalResults: 1, schemas: list.schemas }) as object)
  })

  it('Groups, with their members', async () => {
    const created = (await scim.post('/Users', { userName: `member-${Date.now()}@contoso.com` })).json()
    await scim.patch('/Groups/MODERATOR', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'add', path: 'members', value: [{ value: created.id }] }],
    })
    const group = (await scim.get('/Groups/MODERATOR')).json()
    expect(group.members).toHaveLength(1)
    expect(sorted(JSON.parse(JSON.stringify(new SCIMMY.Schemas.Group(group, 'out'))))).toEqual(sorted(group))
  })
})
