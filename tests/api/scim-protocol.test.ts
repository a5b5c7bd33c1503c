import { describe, expect, it } from 'vitest'
import { project, readProjection } from '~server/scim/attributes'
import { ScimError } from '~server/scim/errors'
import { readGroupPatch } from '~server/scim/group-patch'
import { readPage } from '~server/scim/list'
import { applyUserPatch, readPatchBody } from '~server/scim/patch'
import { USER_SCHEMA } from '~server/scim/schemas'
import { patchableUser, readUserResource, type ScimUserRecord, toScimUser } from '~server/scim/user-resource'

/**
 * The SCIM protocol layer without a database: PATCH as Entra ID and Okta send it (one test per
 * quirk of contract section 13, with the body that service sends), the User read both ways, the
 * Group PATCH, `attributes`/`excludedAttributes` and paging.
 */

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
const BASE = 'https://accounts.example.com/scim/v2'

const jane: ScimUserRecord = {
  id: '0d4b7c2a-7f7e-4c61-9d43-3c2f7d0c9a11',
  name: 'Jane Doe',
  email: 'jane.doe@contoso.com',
  phone: null,
  role: 'CLIENT',
  status: 'ACTIVE',
  created_at: new Date('2026-11-01T10:00:00Z'),
  updated_at: new Date('2026-11-02T10:00:00Z'),
  scim_user_name: 'Jane.Doe@contoso.com',
  scim_external_id: 'e-1234',
  scim_given_name: 'Jane',
  scim_family_name: 'Doe',
}

/** The account's fields after a PATCH body, as the use case reads them. */
const patched = (body: unknown, row: ScimUserRecord = jane) => readUserResource(applyUserPatch(patchableUser(row), readPatchBody(body)))

function scimError(run: () => unknown): ReturnType<ScimError['toBody']> {
  try {
    run()
  } catch (error) {
    if (error instanceof ScimError) return error.toBody()
    throw error
  }
  throw new Error('expected a SCIM error')
}

describe('PATCH as Entra ID sends it', () => {
  it('takes op in any case: "Replace", "Add"', () => {
    const result = patched({
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'displayName', value: 'Jane Q. Doe' },
        { op: 'Add', path: 'externalId', value: 'e-5678' },
      ],
    })
    // givenName and familyName still make up a name: they win over displayName (contract 13).
    expect(result).toMatchObject({ name: 'Jane Doe', externalId: 'e-5678' })
    const noParts = patched(
      { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'displayName', value: 'Jane Q. Doe' }] },
      { ...jane, scim_given_name: null, scim_family_name: null },
    )
    expect(noParts.name).toBe('Jane Q. Doe')
  })

  it('reads active as the strings "False" and "True"', () => {
    expect(patched({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] }).active).toBe(false)
    expect(patched({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] }, { ...jane, status: 'INACTIVE' }).active).toBe(true)
    expect(scimError(() => patched({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'Nope' }] }))).toMatchObject({
      status: '400',
      scimType: 'invalidValue',
    })
  })

  it('takes replace without a path, its value keyed by dotted paths', () => {
    const result = patched({
      schemas: [PATCH_OP],
      Operations: [
        {
          op: 'Replace',
          value: {
            'name.givenName': 'Janet',
            'name.familyName': 'Smith',
            'emails[type eq "work"].value': 'janet.smith@contoso.com',
            'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department': 'Finance',
            active: 'False',
          },
        },
      ],
    })
    expect(result).toMatchObject({ name: 'Janet Smith', givenName: 'Janet', familyName: 'Smith', email: 'janet.smith@contoso.com', active: false })
  })

  it('takes filtered paths: emails[type eq "work"].value, and phone numbers by type', () => {
    const result = patched({
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Add', path: 'emails[type eq "work"].value', value: 'JANE@Contoso.com' },
        { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+1 555 0100' },
        { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 555 0199' },
        { op: 'Add', path: 'addresses[type eq "work"].formatted', value: '1 Main St' },
        { op: 'Replace', path: 'name.familyName', value: 'Doe-Smith' },
      ],
    })
    expect(result).toMatchObject({ email: 'jane@contoso.com', phone: '+1 555 0100', name: 'Jane Doe-Smith' })
    const removed = patched({ schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: 'phoneNumbers[type eq "work"]' }] }, { ...jane, phone: '+1 555 0100' })
    expect(removed.phone).toBeNull()
  })

  it('accepts and ignores the enterprise extension, the password and known attributes it does not keep', () => {
    const result = patched({
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber', value: '701984' },
        { op: 'Replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager', value: '26118915-6090-4610-87e4-49d8ca9f808d' },
        { op: 'Add', path: 'title', value: 'Engineer' },
        { op: 'Replace', path: 'preferredLanguage', value: 'fr-FR' },
        { op: 'Replace', path: 'password', value: 'Secret-123!' },
        { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:contoso:2.0:User:badge', value: 'x' },
      ],
    })
    expect(result).toEqual(readUserResource(patchableUser(jane)))
  })

  it('takes a one-element list as the value of a single-valued attribute', () => {
    expect(patched({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'externalId', value: ['e-9'] }] }).externalId).toBe('e-9')
  })
})

describe('PATCH as Okta sends it', () => {
  it('deactivates with replace of { active: false } and no path', () => {
    expect(patched({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] }).active).toBe(false)
  })

  it('ignores a password replace', () => {
    const result = patched({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { password: 'Hunter2-Hunter2!' } }] })
    expect(result).toEqual(readUserResource(patchableUser(jane)))
  })

  it('replaces the whole name object', () => {
    expect(patched({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name', value: { givenName: 'Ann', familyName: 'Lee' } }] }).name).toBe('Ann Lee')
  })
})

describe('PATCH refusals', () => {
  it.each([
    [{}, 'invalidSyntax'],
    [{ schemas: [PATCH_OP], Operations: [] }, 'invalidSyntax'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'userName', value: 'x' }] }, 'invalidSyntax'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }, 'noTarget'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: 'x' }] }, 'invalidValue'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'nickNames', value: 'x' }] }, 'invalidPath'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name.middleInitial', value: 'x' }] }, 'invalidPath'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[type eq "work"', value: 'x' }] }, 'invalidPath'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:shoeSize', value: 'x' }] }, 'invalidPath'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { nickNames: 'x' } }] }, 'invalidPath'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'roles', value: [{ value: 'ADMIN' }] }] }, 'mutability'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'id', value: 'x' }] }, 'mutability'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: '' }] }, 'invalidValue'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[type eq "work"].value', value: 'not-an-address' }] }, 'invalidValue'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[type eq "work"].value', value: 'pаypal@example.com' }] }, 'invalidValue'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] }, 'invalidValue'],
  ])('%j: 400 %s', (body, scimType) => {
    expect(scimError(() => patched(body, { ...jane, scim_given_name: null, scim_family_name: null }))).toMatchObject({ status: '400', scimType })
  })
})

describe('a User, read and shown', () => {
  it('reads what Entra ID posts: userName kept as given, the work address, the name parts, the password ignored', () => {
    const input = readUserResource({
      schemas: [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7894d7d5ad5d',
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1@contoso.com',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@contoso.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [{ value: 'ADMIN' }],
      password: 'Secret-123!',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Finance' },
    })
    expect(input).toEqual({
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1@contoso.com',
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7894d7d5ad5d',
      email: 'test_user_fd0ea19b-0777-472c-9f96-4f70d2226f2e@contoso.com',
      name: 'givenName familyName',
      givenName: 'givenName',
      familyName: 'familyName',
      phone: null,
      active: true,
    })
  })

  it('takes userName as the address without emails, and refuses one that is not an address or a look-alike', () => {
    expect(readUserResource({ userName: 'ann@example.com', displayName: 'Ann' })).toMatchObject({ email: 'ann@example.com', name: 'Ann' })
    expect(scimError(() => readUserResource({ userName: 'ann' }))).toMatchObject({ status: '400', scimType: 'invalidValue' })
    expect(scimError(() => readUserResource({ userName: 'аnn@example.com' }))).toMatchObject({ status: '400', scimType: 'invalidValue' })
    expect(scimError(() => readUserResource('x'))).toMatchObject({ status: '400', scimType: 'invalidSyntax' })
    expect(scimError(() => readUserResource({ userName: 42 }))).toMatchObject({ status: '400', scimType: 'invalidValue' })
    expect(scimError(() => readUserResource({ userName: 'a@b.co', emails: 'a@b.co' }))).toMatchObject({ status: '400', scimType: 'invalidValue' })
  })

  it('shows an account as a User, name.formatted recomputed, the parts only while they make up the name', () => {
    expect(toScimUser(jane, BASE)).toEqual({
      schemas: [USER_SCHEMA],
      id: jane.id,
      externalId: 'e-1234',
      userName: 'Jane.Doe@contoso.com',
      name: { formatted: 'Jane Doe', givenName: 'Jane', familyName: 'Doe' },
      displayName: 'Jane Doe',
      active: true,
      emails: [{ value: 'jane.doe@contoso.com', type: 'work', primary: true }],
      roles: [{ value: 'CLIENT', primary: true }],
      groups: [{ value: 'CLIENT', display: 'CLIENT', $ref: `${BASE}/Groups/CLIENT` }],
      meta: { resourceType: 'User', created: '2026-11-01T10:00:00.000Z', lastModified: '2026-11-02T10:00:00.000Z', location: `${BASE}/Users/${jane.id}` },
    })
    expect(toScimUser({ ...jane, name: 'Jane Renamed' }, BASE).name).toEqual({ formatted: 'Jane Renamed' })
  })
})

describe('a Group PATCH', () => {
  const read = (body: unknown, group = 'DEVELOPER') => readGroupPatch(readPatchBody(body), group)

  it('adds members as Entra ID and Okta send them', () => {
    expect(read({ schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'members', value: [{ value: 'u1' }, { value: 'u2', display: 'Two' }] }] })).toEqual({
      add: ['u1', 'u2'],
      remove: [],
    })
  })

  it('removes members by members[value eq "…"] and by a list of values', () => {
    expect(read({ schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: 'members[value eq "u1"]' }] })).toEqual({ add: [], remove: ['u1'] })
    expect(read({ schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'members', value: [{ value: 'u2' }] }] })).toEqual({ add: [], remove: ['u2'] })
  })

  it("takes Okta's replace of { id, displayName } that says the name it has, and refuses a rename with 403", () => {
    expect(read({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { id: 'DEVELOPER', displayName: 'DEVELOPER' } }] })).toEqual({ add: [], remove: [] })
    expect(scimError(() => read({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'Developers' }] }))).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '403',
      detail: 'Groups are the four roles: they cannot be renamed',
    })
  })

  it('refuses other paths and malformed members', () => {
    expect(scimError(() => read({ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'owners', value: [] }] }))).toMatchObject({ scimType: 'invalidPath' })
    expect(scimError(() => read({ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ id: 'u1' }] }] }))).toMatchObject({
      scimType: 'invalidValue',
    })
    expect(scimError(() => read({ schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'members[display eq "x"]' }] }))).toMatchObject({ scimType: 'invalidPath' })
  })
})

describe('attributes, excludedAttributes and paging', () => {
  const user = toScimUser(jane, BASE)

  it('returns only the attributes asked for, with id and schemas', () => {
    expect(project(user, readProjection('userName,name.givenName,emails.value', undefined), USER_SCHEMA)).toEqual({
      schemas: [USER_SCHEMA],
      id: jane.id,
      userName: 'Jane.Doe@contoso.com',
      name: { givenName: 'Jane' },
      emails: [{ value: 'jane.doe@contoso.com' }],
    })
    expect(project(user, readProjection(`${USER_SCHEMA}:USERNAME`, undefined), USER_SCHEMA)).toEqual({ schemas: [USER_SCHEMA], id: jane.id, userName: user.userName })
  })

  it('leaves out the excluded ones, never id', () => {
    const result = project(user, readProjection(undefined, 'emails,name.familyName,id,meta'), USER_SCHEMA)
    expect(result).not.toHaveProperty('emails')
    expect(result).not.toHaveProperty('meta')
    expect(result).toMatchObject({ id: jane.id, name: { formatted: 'Jane Doe', givenName: 'Jane' } })
  })

  it('pages from 1 up to 200, refusing more as tooMany', () => {
    expect(readPage(undefined, undefined)).toEqual({ startIndex: 1, count: 200 })
    expect(readPage('0', '-5')).toEqual({ startIndex: 1, count: 0 })
    expect(scimError(() => readPage('1', '201'))).toMatchObject({ status: '400', scimType: 'tooMany' })
    expect(scimError(() => readPage('x', '1'))).toMatchObject({ status: '400', scimType: 'invalidValue' })
    expect(scimError(() => readProjection(['a', 'b'], undefined))).toMatchObject({ status: '400', scimType: 'invalidValue' })
  })
})
