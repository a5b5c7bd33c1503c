import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import type { IdentityProvider } from '~shared/schemas/identity-providers'
import { SignInMethodsPage } from '~web/features/admin-identity-providers/components/sign-in-methods-page'
import { type FakeApi, fail, installFakeApi, ok } from './support/fake-api'
import { fieldError, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const admin = makeUser({ name: 'Ada Admin', role: 'ADMIN' })

const sso: IdentityProvider = {
  id: 'idp_companyssocompanysso',
  kind: 'oidc',
  name: 'Company SSO',
  enabled: true,
  showOnSignIn: true,
  issuer: 'https://sso.example.com/realms/staff',
  tenant: null,
  clientId: 'accounts',
  hasClientSecret: true,
  scopes: ['openid', 'email', 'profile'],
  baseUrl: null,
  samlMetadataXml: null,
  samlEmailAttribute: null,
  samlNameAttribute: null,
  emailDomains: ['example.com', 'example.org'],
  trustEmail: false,
  allowSignUp: true,
  defaultRole: 'CLIENT',
  roleRules: [{ claim: 'groups', value: 'engineering', role: 'DEVELOPER' }],
  syncRoles: false,
  createdAt: '2026-05-01T10:00:00.000Z',
  updatedAt: '2026-05-01T10:00:00.000Z',
}
const github: IdentityProvider = {
  ...sso,
  id: 'idp_githubgithubgithubgit',
  kind: 'github',
  name: 'GitHub',
  issuer: null,
  enabled: false,
  emailDomains: [],
  roleRules: [],
}

const okta: IdentityProvider = {
  ...sso,
  id: 'idp_oktaoktaoktaoktaokta',
  kind: 'saml',
  name: 'Okta',
  issuer: null,
  clientId: null,
  hasClientSecret: false,
  scopes: null,
  samlMetadataXml: '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://okta.example.com"/>',
  samlEmailAttribute: 'upn',
}

/** The server names APP_URL (https://accounts.example.com) in its discovery document, whatever the browser opened. */
const discovery = {
  issuer: 'https://accounts.example.com/oidc',
  authorization_endpoint: 'https://accounts.example.com/oidc/auth',
  token_endpoint: 'https://accounts.example.com/oidc/token',
  userinfo_endpoint: 'https://accounts.example.com/oidc/me',
  jwks_uri: 'https://accounts.example.com/oidc/jwks',
  end_session_endpoint: 'https://accounts.example.com/oidc/session/end',
}

function renderPage(providers: IdentityProvider[] = [sso, github], api: FakeApi = installFakeApi()) {
  api.on('GET /oidc/.well-known/openid-configuration', { status: 200, body: discovery }).on('GET /admin/identity-providers', ok({ identityProviders: providers }))
  return { api, ...renderApp(<SignInMethodsPage />, { url: '/admin/sign-in-methods', user: admin }) }
}

const row = (name: string) => screen.getByRole('rowheader', { name: new RegExp(`^${name}`) }).closest('tr') as HTMLElement

async function chooseAction(user: ReturnType<typeof renderApp>['user'], name: string, action: string) {
  await user.click(screen.getByRole('button', { name: `Actions for ${name}` }))
  await user.click(await screen.findByRole('menuitem', { name: action }))
}

describe('sign-in methods', () => {
  test('the list shows each provider: name, kind, enabled or not, email domains', async () => {
    renderPage()
    expect(await screen.findByRole('heading', { name: 'Sign-in methods' })).toBeTruthy()
    await screen.findByRole('table', { name: 'Sign-in methods' })
    expect(screen.getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual(['Name', 'Kind', 'Status', 'Email domains', 'Actions'])
    expect(within(row('Company SSO')).getByText('OpenID Connect')).toBeTruthy()
    expect(within(row('Company SSO')).getByText('Enabled')).toBeTruthy()
    expect(within(row('Company SSO')).getByText('example.com, example.org')).toBeTruthy()
    expect(within(row('GitHub')).getByText('Disabled')).toBeTruthy()
    expect(within(row('GitHub')).getByText('None')).toBeTruthy()
  })

  test('none yet: says what a sign-in method is', async () => {
    renderPage([])
    expect(await screen.findByText('No sign-in methods yet')).toBeTruthy()
  })

  test('adding an OpenID Connect provider sends only what its kind takes, then shows the redirect URI on APP_URL to copy', async () => {
    const { api, user } = renderPage([])
    const created = { ...sso, id: 'idp_newnewnewnewnewnewnew', roleRules: [], emailDomains: ['example.com'] }
    api.on('POST /admin/identity-providers', { status: 201, body: { success: true, data: { identityProvider: created } } })
    await user.click(await screen.findByRole('button', { name: 'Add sign-in method' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add a sign-in method' })
    expect(within(dialog).queryByLabelText(/^Tenant/)).toBeNull()
    expect(within(dialog).queryByLabelText(/^GitHub address/)).toBeNull()

    // Checked with the server's schema before anything is sent.
    await user.click(within(dialog).getByRole('button', { name: 'Add sign-in method' }))
    expect(await within(dialog).findByText('Provider name is required')).toBeTruthy()
    expect(api.callsTo('POST /admin/identity-providers')).toHaveLength(0)

    await user.type(within(dialog).getByLabelText('Name'), 'Company SSO')
    await user.type(within(dialog).getByLabelText('Issuer'), 'https://sso.example.com/realms/staff/')
    await user.type(within(dialog).getByLabelText('Client ID'), 'accounts')
    await user.type(within(dialog).getByLabelText('Client secret'), 'upstream-secret')
    await user.type(within(dialog).getByLabelText(/^Email domains/), 'Example.com, ')
    await user.click(within(dialog).getByRole('checkbox', { name: 'Create accounts for new people' }))
    await user.click(within(dialog).getByRole('button', { name: 'Add a rule' }))
    await user.type(within(dialog).getByLabelText('Claim of rule 1'), 'groups')
    await user.type(within(dialog).getByLabelText('Value of rule 1'), 'engineering')
    await user.selectOptions(within(dialog).getByLabelText('Role of rule 1'), 'DEVELOPER')
    await user.click(within(dialog).getByRole('button', { name: 'Add sign-in method' }))

    const done = await screen.findByRole('dialog', { name: 'Sign-in method added' })
    expect(api.callsTo('POST /admin/identity-providers')[0]!.body).toEqual({
      kind: 'oidc',
      name: 'Company SSO',
      issuer: 'https://sso.example.com/realms/staff/',
      clientId: 'accounts',
      clientSecret: 'upstream-secret',
      emailDomains: ['Example.com'],
      trustEmail: false,
      allowSignUp: true,
      defaultRole: 'CLIENT',
      roleRules: [{ claim: 'groups', value: 'engineering', role: 'DEVELOPER' }],
      syncRoles: false,
      showOnSignIn: true,
    })
    const redirect = 'https://accounts.example.com/api/auth/federation/idp_newnewnewnewnewnewnew/callback'
    expect((within(done).getByLabelText('Redirect URI') as HTMLInputElement).value).toBe(redirect)
    await user.click(within(done).getByRole('button', { name: 'Copy Redirect URI' }))
    expect(await navigator.clipboard.readText()).toBe(redirect)
  })

  test('each kind shows its own fields; a Google provider trusts verified addresses by default', async () => {
    const { api, user } = renderPage([])
    api.on('POST /admin/identity-providers', { status: 201, body: { success: true, data: { identityProvider: { ...sso, kind: 'google' } } } })
    await user.click(await screen.findByRole('button', { name: 'Add sign-in method' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add a sign-in method' })
    await user.click(within(dialog).getByRole('radio', { name: 'Microsoft' }))
    expect(within(dialog).getByLabelText(/^Tenant/)).toBeTruthy()
    expect(within(dialog).queryByLabelText('Issuer')).toBeNull()
    await user.click(within(dialog).getByRole('radio', { name: 'GitHub' }))
    expect(within(dialog).getByLabelText(/^GitHub address/)).toBeTruthy()
    expect(within(dialog).queryByLabelText(/^Tenant/)).toBeNull()
    await user.click(within(dialog).getByRole('radio', { name: 'Google' }))
    expect((within(dialog).getByRole('checkbox', { name: 'Trust the provider’s verified email addresses' }) as HTMLInputElement).checked).toBe(true)
    await user.type(within(dialog).getByLabelText('Name'), 'Google')
    await user.type(within(dialog).getByLabelText('Client ID'), 'id.apps.googleusercontent.com')
    await user.type(within(dialog).getByLabelText('Client secret'), 'GOCSPX-secret')
    await user.click(within(dialog).getByRole('button', { name: 'Add sign-in method' }))
    await screen.findByRole('dialog', { name: 'Sign-in method added' })
    expect(api.callsTo('POST /admin/identity-providers')[0]!.body).toMatchObject({ kind: 'google', trustEmail: true })
    expect(api.callsTo('POST /admin/identity-providers')[0]!.body).not.toHaveProperty('issuer')
  })

  test("the server's field message shows at its field (an issuer whose discovery does not answer)", async () => {
    const { api, user } = renderPage([])
    api.on(
      'POST /admin/identity-providers',
      fail(400, 'Validation failed', {
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'issuer', message: 'The provider’s OpenID Connect discovery document could not be read from this issuer' }],
      }),
    )
    await user.click(await screen.findByRole('button', { name: 'Add sign-in method' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add a sign-in method' })
    await user.type(within(dialog).getByLabelText('Name'), 'Down')
    await user.type(within(dialog).getByLabelText('Issuer'), 'https://down.example.com')
    await user.type(within(dialog).getByLabelText('Client ID'), 'x')
    await user.type(within(dialog).getByLabelText('Client secret'), 'y')
    await user.click(within(dialog).getByRole('button', { name: 'Add sign-in method' }))
    await waitFor(() => expect(fieldError('Issuer')).toBe('The provider’s OpenID Connect discovery document could not be read from this issuer'))
  })

  test('editing shows the redirect URI and never the secret; an empty secret keeps it', async () => {
    const { api, user } = renderPage()
    api.on('PUT /admin/identity-providers/:id', (request) => ok({ identityProvider: { ...sso, ...(request.body as object) } }))
    await screen.findByRole('table', { name: 'Sign-in methods' })
    await chooseAction(user, 'Company SSO', 'Edit')
    const dialog = await screen.findByRole('dialog', { name: 'Edit sign-in method' })
    expect((within(dialog).getByLabelText('Redirect URI') as HTMLInputElement).value).toBe(
      'https://accounts.example.com/api/auth/federation/idp_companyssocompanysso/callback',
    )
    const secret = within(dialog).getByLabelText('Client secret') as HTMLInputElement
    expect(secret.value).toBe('')
    expect(within(dialog).getByText('Write-only: leave empty to keep the current secret.')).toBeTruthy()
    expect((within(dialog).getByRole('radio', { name: 'OpenID Connect' }) as HTMLInputElement).disabled).toBe(true)
    await user.clear(within(dialog).getByLabelText('Name'))
    await user.type(within(dialog).getByLabelText('Name'), 'Staff SSO')
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(api.callsTo('PUT /admin/identity-providers/:id')).toHaveLength(1))
    const body = api.callsTo('PUT /admin/identity-providers/:id')[0]!.body as Record<string, unknown>
    expect(body).toMatchObject({ name: 'Staff SSO', issuer: sso.issuer, clientId: 'accounts', roleRules: sso.roleRules })
    expect(body).not.toHaveProperty('clientSecret')
    expect(body).not.toHaveProperty('kind')
  })

  test('emptying the tenant, the scopes or the GitHub address on an edit puts the kind’s default back (null)', async () => {
    const entra: IdentityProvider = {
      ...sso,
      id: 'idp_entraentraentraentra',
      kind: 'microsoft',
      name: 'Entra ID',
      issuer: null,
      tenant: 'contoso.com',
      scopes: ['openid', 'email'],
    }
    const enterprise: IdentityProvider = { ...github, baseUrl: 'https://github.example.internal', scopes: ['read:user'] }
    const { api, user } = renderPage([entra, enterprise])
    api.on('PUT /admin/identity-providers/:id', (request) => ok({ identityProvider: { ...entra, ...(request.body as object) } }))
    await screen.findByRole('table', { name: 'Sign-in methods' })

    await chooseAction(user, 'Entra ID', 'Edit')
    let dialog = await screen.findByRole('dialog', { name: 'Edit sign-in method' })
    expect((within(dialog).getByLabelText(/^Tenant/) as HTMLInputElement).value).toBe('contoso.com')
    await user.clear(within(dialog).getByLabelText(/^Tenant/))
    await user.clear(within(dialog).getByLabelText(/^Scopes/))
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(api.callsTo('PUT /admin/identity-providers/:id')).toHaveLength(1))
    expect(api.callsTo('PUT /admin/identity-providers/:id')[0]!.body).toMatchObject({ tenant: null, scopes: null })
    expect(api.callsTo('PUT /admin/identity-providers/:id')[0]!.body).not.toHaveProperty('baseUrl')
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit sign-in method' })).toBeNull())

    await chooseAction(user, 'GitHub', 'Edit')
    dialog = await screen.findByRole('dialog', { name: 'Edit sign-in method' })
    await user.clear(within(dialog).getByLabelText(/^GitHub address/))
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(api.callsTo('PUT /admin/identity-providers/:id')).toHaveLength(2))
    const body = api.callsTo('PUT /admin/identity-providers/:id')[1]!.body
    expect(body).toMatchObject({ baseUrl: null, scopes: ['read:user'] })
    expect(body).not.toHaveProperty('tenant')
  })

  test('a SAML provider: its metadata pasted, its attributes’ names, no client ID or secret; its entity ID, ACS URL and metadata once added', async () => {
    const { api, user } = renderPage([])
    const metadata = okta.samlMetadataXml!
    api.on('POST /admin/identity-providers', { status: 201, body: { success: true, data: { identityProvider: okta } } })
    await user.click(await screen.findByRole('button', { name: 'Add sign-in method' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add a sign-in method' })
    await user.click(within(dialog).getByRole('radio', { name: 'SAML 2.0' }))
    expect(within(dialog).queryByLabelText('Client ID')).toBeNull()
    expect(within(dialog).queryByLabelText('Client secret')).toBeNull()
    expect(within(dialog).queryByLabelText(/^Scopes/)).toBeNull()
    expect(within(dialog).getByText(/shown once it is added/)).toBeTruthy()
    // The default lists: begun in the placeholder, whole in the hint.
    expect((within(dialog).getByLabelText(/^Email attribute/) as HTMLInputElement).placeholder).toBe('mail, email, …')
    expect(
      within(dialog)
        .getByLabelText(/^Email attribute/)
        .getAttribute('aria-describedby'),
    ).toBeTruthy()
    expect(
      within(dialog).getByText(
        'The attribute’s name as the identity provider sends it. When empty, the first of these it sends: mail, email, http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress, urn:oid:0.9.2342.19200300.100.1.3.',
      ),
    ).toBeTruthy()
    expect((within(dialog).getByLabelText(/^Name attribute/) as HTMLInputElement).placeholder).toBe('displayName, name, …')

    // The metadata is required, checked before anything is sent.
    await user.type(within(dialog).getByLabelText('Name'), 'Okta')
    await user.click(within(dialog).getByRole('button', { name: 'Add sign-in method' }))
    expect(await within(dialog).findByText('This field is required for this kind of provider')).toBeTruthy()
    expect(api.callsTo('POST /admin/identity-providers')).toHaveLength(0)

    const box = within(dialog).getByLabelText('Identity provider metadata (XML)')
    expect(box.tagName).toBe('TEXTAREA')
    await user.click(box)
    await user.paste(metadata)
    await user.type(within(dialog).getByLabelText(/^Email attribute/), 'upn')
    await user.click(within(dialog).getByRole('button', { name: 'Add sign-in method' }))
    const done = await screen.findByRole('dialog', { name: 'Sign-in method added' })
    const body = api.callsTo('POST /admin/identity-providers')[0]!.body as Record<string, unknown>
    expect(body).toMatchObject({ kind: 'saml', name: 'Okta', samlMetadataXml: metadata, samlEmailAttribute: 'upn' })
    for (const field of ['clientId', 'clientSecret', 'scopes', 'samlNameAttribute', 'issuer']) expect(body).not.toHaveProperty(field)

    const entityId = 'https://accounts.example.com/api/auth/federation/idp_oktaoktaoktaoktaokta/saml'
    expect((within(done).getByLabelText('Entity ID') as HTMLInputElement).value).toBe(entityId)
    expect((within(done).getByLabelText('ACS URL (assertion consumer service)') as HTMLInputElement).value).toBe(entityId)
    expect(within(done).getByRole('link', { name: 'This product’s SAML metadata' }).getAttribute('href')).toBe(`${entityId}/metadata`)
    expect(within(done).queryByLabelText('Redirect URI')).toBeNull()
    await user.click(within(done).getByRole('button', { name: 'Copy Entity ID' }))
    expect(await navigator.clipboard.readText()).toBe(entityId)
  })

  test('editing a SAML provider shows its addresses and its metadata; an emptied attribute name is sent as null', async () => {
    const { api, user } = renderPage([okta])
    api.on('PUT /admin/identity-providers/:id', (request) => ok({ identityProvider: { ...okta, ...(request.body as object) } }))
    await screen.findByRole('table', { name: 'Sign-in methods' })
    await chooseAction(user, 'Okta', 'Edit')
    const dialog = await screen.findByRole('dialog', { name: 'Edit sign-in method' })
    expect((within(dialog).getByLabelText('Entity ID') as HTMLInputElement).value).toBe('https://accounts.example.com/api/auth/federation/idp_oktaoktaoktaoktaokta/saml')
    expect(within(dialog).queryByText(/shown once it is added/)).toBeNull()
    expect((within(dialog).getByLabelText('Identity provider metadata (XML)') as HTMLTextAreaElement).value).toBe(okta.samlMetadataXml)
    await user.clear(within(dialog).getByLabelText(/^Email attribute/))
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(api.callsTo('PUT /admin/identity-providers/:id')).toHaveLength(1))
    expect(api.callsTo('PUT /admin/identity-providers/:id')[0]!.body).toMatchObject({
      samlMetadataXml: okta.samlMetadataXml,
      samlEmailAttribute: null,
      samlNameAttribute: null,
    })
  })

  test('disable and enable from the row', async () => {
    const { api, user } = renderPage()
    api.on('PUT /admin/identity-providers/:id', (request) => ok({ identityProvider: { ...sso, ...(request.body as object) } }))
    await screen.findByRole('table', { name: 'Sign-in methods' })
    await chooseAction(user, 'Company SSO', 'Disable')
    await waitFor(() => expect(api.callsTo('PUT /admin/identity-providers/:id')[0]?.body).toEqual({ enabled: false }))
    await chooseAction(user, 'GitHub', 'Enable')
    await waitFor(() => expect(api.callsTo('PUT /admin/identity-providers/:id')[1]?.body).toEqual({ enabled: true }))
  })

  test('delete asks first, names the provider, and says the accounts stay', async () => {
    const { api, user } = renderPage()
    api.on('DELETE /admin/identity-providers/:id', ok(undefined, 'Identity provider deleted'))
    await screen.findByRole('table', { name: 'Sign-in methods' })
    await chooseAction(user, 'GitHub', 'Delete')
    const confirm = await screen.findByRole('dialog', { name: 'Delete sign-in method' })
    expect(within(confirm).getByText(/Delete GitHub\? .*their accounts stay/)).toBeTruthy()
    expect(api.callsTo('DELETE /admin/identity-providers/:id')).toHaveLength(0)
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(api.callsTo('DELETE /admin/identity-providers/:id')[0]?.params.id).toBe(github.id))
    await waitFor(() => expect(toastTexts()).toContain('Sign-in method deleted'))
  })
})
