import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identityProviderMessages } from '~shared/schemas/identity-providers'
import { generateSigningKey } from '../support/simplesamlphp'
import { type UpstreamProvider, startUpstreamProvider } from '../support/upstream-provider'
import { identityProviderMetadata } from './helpers/saml-responses'
import { type SignedIn, useTestApp } from '../support/test-app'
import { as, expectFailure, expectSuccess } from './helpers/requests'
import { quickSignIn } from './helpers/users'

const t = useTestApp()

let admin: SignedIn
let upstream: UpstreamProvider
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Ada Admin' })
  upstream = await startUpstreamProvider()
})
afterAll(async () => {
  await upstream?.close()
})

const create = (body: Record<string, unknown>) => as(t, admin).post('/api/admin/identity-providers', body)
const edit = (id: string, body: Record<string, unknown>) => as(t, admin).put(`/api/admin/identity-providers/${id}`, body)
const entriesAbout = (id: string) =>
  t.ctx.db.selectFrom('activities').select(['activity', 'details', 'changes']).where('details', 'like', `${id}%`).orderBy('created_at').orderBy('id').execute()
const fieldsOf = (response: Awaited<ReturnType<typeof create>>) => Object.fromEntries(expectFailure(response, 400).errors!.map((error) => [error.field, error.message]))

const GOOGLE = { kind: 'google', name: 'Google', clientId: 'google-client.apps.googleusercontent.com', clientSecret: 'GOCSPX-very-secret' }

describe('adding identity providers', () => {
  it('adds a Google preset with the contract’s defaults; the secret is sealed at rest and never returned', async () => {
    const { identityProvider } = expectSuccess(await create(GOOGLE), 201).data
    expect(identityProvider).toEqual({
      id: expect.stringMatching(/^idp_[A-Za-z0-9_-]{16}$/),
      kind: 'google',
      name: 'Google',
      enabled: true,
      showOnSignIn: true,
      issuer: 'https://accounts.google.com',
      tenant: null,
      clientId: GOOGLE.clientId,
      hasClientSecret: true,
      scopes: ['openid', 'email', 'profile'],
      baseUrl: null,
      samlMetadataXml: null,
      samlEmailAttribute: null,
      samlNameAttribute: null,
      emailDomains: [],
      trustEmail: true,
      allowSignUp: false,
      defaultRole: 'CLIENT',
      roleRules: [],
      syncRoles: false,
      createdAt: t.clock.now().toISOString(),
      updatedAt: t.clock.now().toISOString(),
    })
    const row = await t.ctx.db.selectFrom('identity_providers').select('client_secret_sealed').where('id', '=', identityProvider.id).executeTakeFirstOrThrow()
    expect(row.client_secret_sealed!.toString('latin1')).not.toContain(GOOGLE.clientSecret)
    expect(t.ctx.providerSecretSealer.open(row.client_secret_sealed!)).toBe(GOOGLE.clientSecret)

    const one = await as(t, admin).get(`/api/admin/identity-providers/${identityProvider.id}`)
    expect(expectSuccess(one).data).toEqual({ identityProvider })
    const list = await as(t, admin).get('/api/admin/identity-providers')
    expect(list.body).not.toContain(GOOGLE.clientSecret)
    expect(expectSuccess(list).data.identityProviders).toContainEqual(identityProvider)
    expect(await entriesAbout(identityProvider.id)).toEqual([{ activity: 'Created identity provider Google', details: identityProvider.id, changes: null }])
    expect(t.logs.join('\n')).not.toContain(GOOGLE.clientSecret)
  })

  it('adds Microsoft (tenant organizations by default, e-mail not trusted) and GitHub (github.com, its scopes)', async () => {
    const microsoft = expectSuccess(await create({ ...GOOGLE, kind: 'microsoft', name: 'Entra ID' }), 201).data.identityProvider
    expect(microsoft).toMatchObject({ tenant: 'organizations', issuer: 'https://login.microsoftonline.com/organizations/v2.0', trustEmail: false, baseUrl: null })
    const github = expectSuccess(await create({ ...GOOGLE, kind: 'github', name: 'GitHub' }), 201).data.identityProvider
    expect(github).toMatchObject({ baseUrl: 'https://github.com', issuer: null, tenant: null, scopes: ['read:user', 'user:email'], trustEmail: false })
    const enterprise = expectSuccess(await create({ ...GOOGLE, kind: 'github', name: 'GitHub Enterprise', baseUrl: 'https://github.example.internal/' }), 201).data
    expect(enterprise.identityProvider.baseUrl).toBe('https://github.example.internal')
  })

  it('adds a generic OpenID Connect provider once its issuer answers discovery, with domains, sign-up and role rules', async () => {
    const body = {
      kind: 'oidc',
      name: 'Company SSO',
      issuer: upstream.issuer,
      clientId: 'accounts',
      clientSecret: 'upstream-secret',
      emailDomains: ['Corp.Example.COM', 'corp.example.com', 'eu.corp.example.com'],
      allowSignUp: true,
      defaultRole: 'DEVELOPER',
      roleRules: [{ claim: 'groups', value: 'admins', role: 'ADMIN' }],
      syncRoles: true,
      showOnSignIn: false,
    }
    const { identityProvider } = expectSuccess(await create(body), 201).data
    expect(identityProvider).toMatchObject({
      issuer: upstream.issuer,
      emailDomains: ['corp.example.com', 'eu.corp.example.com'],
      trustEmail: false,
      allowSignUp: true,
      defaultRole: 'DEVELOPER',
      roleRules: [{ claim: 'groups', value: 'admins', role: 'ADMIN' }],
      syncRoles: true,
      showOnSignIn: false,
    })

    // A domain routes to one provider.
    const twice = await create({ ...GOOGLE, name: 'Other', emailDomains: ['corp.example.com'] })
    expect(fieldsOf(twice).emailDomains).toBe(`${identityProviderMessages.domainTaken}: corp.example.com`)
  })

  it('refuses an issuer that does not answer discovery, and addresses that are not https or loopback http', async () => {
    const unreachable = await create({ kind: 'oidc', name: 'Gone', issuer: 'http://127.0.0.1:9/', clientId: 'x', clientSecret: 'y' })
    expect(fieldsOf(unreachable)).toEqual({ issuer: identityProviderMessages.discovery })
    for (const issuer of [
      'http://sso.example.com',
      'ftp://sso.example.com',
      'https://user:pass@sso.example.com',
      'https://sso.example.com/#x',
      'not a url',
      'javascript:alert(1)',
    ]) {
      expect(fieldsOf(await create({ kind: 'oidc', name: 'Bad', issuer, clientId: 'x', clientSecret: 'y' })).issuer, issuer).toBe(identityProviderMessages.url)
    }
    expect(await t.ctx.db.selectFrom('identity_providers').select('id').where('name', 'in', ['Gone', 'Bad']).execute()).toEqual([])
  })

  it('refuses fields another kind takes, missing required ones, unknown fields, ADMIN as default role and bad shapes', async () => {
    expect(fieldsOf(await create({ ...GOOGLE, tenant: 'organizations', baseUrl: 'https://github.com' }))).toEqual({
      tenant: identityProviderMessages.notForKind,
      baseUrl: identityProviderMessages.notForKind,
    })
    expect(fieldsOf(await create({ kind: 'oidc', name: 'Half' }))).toEqual({
      issuer: identityProviderMessages.required,
      clientId: identityProviderMessages.required,
      clientSecret: identityProviderMessages.required,
    })
    expect(fieldsOf(await create({ ...GOOGLE, defaultRole: 'ADMIN' })).defaultRole).toBe(identityProviderMessages.defaultRoleAdmin)
    expect(fieldsOf(await create({ ...GOOGLE, kind: 'ldap' })).kind).toBe(identityProviderMessages.kind)
    expect(fieldsOf(await create({ ...GOOGLE, kind: 'saml' }))).toEqual({
      clientId: identityProviderMessages.notForKind,
      clientSecret: identityProviderMessages.notForKind,
      samlMetadataXml: identityProviderMessages.required,
    })
    expect(fieldsOf(await create({ ...GOOGLE, samlEmailAttribute: 'mail' })).samlEmailAttribute).toBe(identityProviderMessages.notForKind)
    expect(expectFailure(await create({ ...GOOGLE, id: 'idp_mine' }), 400).code).toBe('VALIDATION_ERROR')
    expect(expectFailure(await create({ ...GOOGLE, hasClientSecret: false }), 400).code).toBe('VALIDATION_ERROR')
    expect(fieldsOf(await create({ ...GOOGLE, name: 'x'.repeat(51) })).name).toBe(identityProviderMessages.nameMax)
    expect(fieldsOf(await create({ ...GOOGLE, emailDomains: ['not a domain'] }))['emailDomains.0']).toBe(identityProviderMessages.domains)
    expect(fieldsOf(await create({ ...GOOGLE, roleRules: [{ claim: 'groups', value: 'x', role: 'OWNER' }] }))['roleRules.0.role']).toBe(identityProviderMessages.role)
    expect(fieldsOf(await create({ ...GOOGLE, roleRules: [{ claim: 'groups' }] }))).toHaveProperty(['roleRules.0.value'])
    expect(fieldsOf(await create({ ...GOOGLE, scopes: ['openid email'] }))['scopes.0']).toBe(identityProviderMessages.scopes)
    expectFailure(await as(t, admin).post('/api/admin/identity-providers', JSON.parse('{"__proto__": {"admin": true}, "kind": "google"}')), 400)
  })
})

describe('editing and deleting identity providers', () => {
  it('edits what its kind takes, replaces the secret without showing it, and records from what to what', async () => {
    const { id } = expectSuccess(await create({ ...GOOGLE, name: 'Google Workspace' }), 201).data.identityProvider
    const edited = expectSuccess(await edit(id, { name: 'Workspace', enabled: false, clientSecret: 'GOCSPX-new-secret', emailDomains: ['workspace.example.com'] })).data
    expect(edited.identityProvider).toMatchObject({ name: 'Workspace', enabled: false, hasClientSecret: true, emailDomains: ['workspace.example.com'] })
    const row = await t.ctx.db.selectFrom('identity_providers').select('client_secret_sealed').where('id', '=', id).executeTakeFirstOrThrow()
    expect(t.ctx.providerSecretSealer.open(row.client_secret_sealed!)).toBe('GOCSPX-new-secret')

    const [, entry] = await entriesAbout(id)
    expect(entry!.activity).toBe('Changed identity provider Google Workspace')
    expect(entry!.changes).toEqual([
      { field: 'name', from: 'Google Workspace', to: 'Workspace' },
      { field: 'enabled', from: 'true', to: 'false' },
      { field: 'emailDomains', from: '[]', to: '["workspace.example.com"]' },
      { field: 'clientSecret', from: null, to: '(replaced)' },
    ])
    expect(JSON.stringify(await entriesAbout(id))).not.toContain('GOCSPX')

    // The same values again: no change, no entry.
    expectSuccess(await edit(id, { name: 'Workspace', enabled: false }))
    expect(await entriesAbout(id)).toHaveLength(2)

    expect(fieldsOf(await edit(id, { kind: 'github' })).kind).toBe(identityProviderMessages.kindFixed)
    expect(fieldsOf(await edit(id, { baseUrl: 'https://github.com' })).baseUrl).toBe(identityProviderMessages.notForKind)
    expect(expectFailure(await edit(id, {}), 400).message).toBe(identityProviderMessages.nothingToUpdate)
    expect(expectFailure(await edit(id, { secret: 'x' }), 400).code).toBe('VALIDATION_ERROR')
    expectFailure(await edit('idp_nobody', { name: 'x' }), 404, identityProviderMessages.notFound, 'IDENTITY_PROVIDER_NOT_FOUND')
  })

  it('puts the tenant, the scopes or the GitHub address back to the kind’s default with null; empty ones are refused', async () => {
    const microsoft = expectSuccess(await create({ ...GOOGLE, kind: 'microsoft', name: 'Entra Reset', tenant: 'contoso.com', scopes: ['openid', 'email'] }), 201).data
    const entra = microsoft.identityProvider.id
    expect(fieldsOf(await edit(entra, { tenant: '' })).tenant).toBe(identityProviderMessages.tenant)
    expect(fieldsOf(await edit(entra, { scopes: [] })).scopes).toBe(identityProviderMessages.scopes)
    expect(fieldsOf(await edit(entra, { baseUrl: null })).baseUrl).toBe(identityProviderMessages.notForKind)
    const reset = expectSuccess(await edit(entra, { tenant: null, scopes: null })).data.identityProvider
    expect(reset).toMatchObject({ tenant: 'organizations', issuer: 'https://login.microsoftonline.com/organizations/v2.0', scopes: ['openid', 'email', 'profile'] })
    expect((await entriesAbout(entra)).at(-1)!.changes).toEqual([
      { field: 'tenant', from: 'contoso.com', to: 'organizations' },
      { field: 'scopes', from: '["openid","email"]', to: '["openid","email","profile"]' },
    ])
    // Already the default: no change, no entry.
    expectSuccess(await edit(entra, { tenant: null }))
    expect(await entriesAbout(entra)).toHaveLength(2)

    const enterprise = expectSuccess(
      await create({ ...GOOGLE, kind: 'github', name: 'GitHub Reset', baseUrl: 'https://github.example.internal', scopes: ['read:user'] }),
      201,
    ).data
    const back = expectSuccess(await edit(enterprise.identityProvider.id, { baseUrl: null, scopes: null })).data.identityProvider
    expect(back).toMatchObject({ baseUrl: 'https://github.com', scopes: ['read:user', 'user:email'] })
    // A SAML provider's attribute names: null is back to the contract's lists (kept as null).
    const key = await generateSigningKey('Admin test identity provider')
    const metadata = identityProviderMetadata('https://idp.example.test/metadata', 'https://idp.example.test/sso', key.certificate)
    const saml = expectSuccess(
      await create({ kind: 'saml', name: 'SAML Reset', samlMetadataXml: metadata, samlEmailAttribute: 'upn', samlNameAttribute: 'cn' }),
      201,
    ).data
    const cleared = expectSuccess(await edit(saml.identityProvider.id, { samlEmailAttribute: null, samlNameAttribute: null })).data.identityProvider
    expect(cleared).toMatchObject({ samlEmailAttribute: null, samlNameAttribute: null, scopes: null, samlMetadataXml: metadata })
    expect(fieldsOf(await edit(saml.identityProvider.id, { samlEmailAttribute: '' })).samlEmailAttribute).toBe(identityProviderMessages.samlAttribute)
    expect(fieldsOf(await edit(saml.identityProvider.id, { scopes: null })).scopes).toBe(identityProviderMessages.notForKind)

    // On create, null is the default as leaving the field out is.
    const created = expectSuccess(await create({ ...GOOGLE, kind: 'github', name: 'GitHub Null', baseUrl: null, scopes: null }), 201).data.identityProvider
    expect(created).toMatchObject({ baseUrl: 'https://github.com', scopes: ['read:user', 'user:email'] })
  })

  it('deletes a provider and the identities linked through it, keeping the accounts; a second delete is a 404', async () => {
    const { id } = expectSuccess(await create({ ...GOOGLE, name: 'Short-lived' }), 201).data.identityProvider
    const person = await quickSignIn(t, { name: 'Linked Person' })
    await t.ctx.db
      .insertInto('federated_identities')
      .values({ provider_id: id, user_id: person.id, subject: 'sub-1', email: person.email, linked_at: t.clock.now() })
      .execute()

    expectSuccess(await as(t, admin).delete(`/api/admin/identity-providers/${id}`))
    expect(await t.ctx.db.selectFrom('federated_identities').select('id').where('provider_id', '=', id).execute()).toEqual([])
    expect(await t.ctx.db.selectFrom('users').select('id').where('id', '=', person.id).execute()).toHaveLength(1)
    expect((await entriesAbout(id)).at(-1)).toMatchObject({ activity: 'Deleted identity provider Short-lived', details: `${id}; 1 linked identity removed` })
    expectFailure(await as(t, admin).delete(`/api/admin/identity-providers/${id}`), 404, identityProviderMessages.notFound)
  })
})

describe('the providers the sign-in page sees', () => {
  it('lists the enabled ones shown on sign-in, and routes an address by its domain, the same whether an account exists or not', async () => {
    const shown = expectSuccess(await create({ ...GOOGLE, name: 'Shown', emailDomains: ['shown.example.com'] }), 201).data.identityProvider
    const hidden = expectSuccess(await create({ ...GOOGLE, name: 'Hidden', showOnSignIn: false, emailDomains: ['hidden.example.com'] }), 201).data.identityProvider
    const off = expectSuccess(await create({ ...GOOGLE, name: 'Off', enabled: false, emailDomains: ['off.example.com'] }), 201).data.identityProvider

    const list = expectSuccess(await t.request('GET', '/api/auth/identity-providers')).data.identityProviders as { id: string }[]
    expect(list).toContainEqual({ id: shown.id, name: 'Shown', kind: 'google' })
    expect(list.map((provider) => provider.id)).not.toContain(hidden.id)
    expect(list.map((provider) => provider.id)).not.toContain(off.id)

    const discover = async (email: string) =>
      expectSuccess(await t.request('GET', `/api/auth/identity-providers/discover?email=${encodeURIComponent(email)}`)).data.identityProvider
    expect(await discover('Someone@Shown.Example.com')).toEqual({ id: shown.id, name: 'Shown' })
    expect(await discover('someone@hidden.example.com')).toEqual({ id: hidden.id, name: 'Hidden' })
    expect(await discover('someone@off.example.com')).toBeNull()
    expect(await discover(admin.email)).toBeNull()
    expectFailure(await t.request('GET', '/api/auth/identity-providers/discover?email=not-an-address'), 400)
    expectFailure(await t.request('GET', '/api/auth/identity-providers/discover'), 400)
  })
})
