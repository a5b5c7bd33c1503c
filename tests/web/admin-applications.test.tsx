import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import type { Application } from '~shared/schemas/applications'
import { ApplicationPage } from '~web/features/admin-applications/components/application-page'
import { ApplicationsPage } from '~web/features/admin-applications/components/applications-page'
import { type FakeApi, fail, installFakeApi, ok } from './support/fake-api'
import { fieldError, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const admin = makeUser({ name: 'Ada Admin', role: 'ADMIN' })

const wiki: Application = {
  id: 'app_wikiwikiwikiwikiwikiw',
  name: 'Team Wiki',
  type: 'confidential',
  redirectUris: ['https://wiki.example.com/callback', 'https://wiki.example.com/other'],
  postLogoutRedirectUris: [],
  backchannelLogoutUri: null,
  allowedRoles: [],
  firstParty: true,
  deviceFlow: false,
  enabled: true,
  scopes: [],
  jwks: null,
  createdAt: '2026-05-01T10:00:00.000Z',
  updatedAt: '2026-05-01T10:00:00.000Z',
}
const phone: Application = {
  ...wiki,
  id: 'app_phonephonephonephonep',
  name: 'Phone App',
  type: 'public',
  redirectUris: ['http://127.0.0.1:8123/cb'],
  firstParty: false,
  enabled: false,
}

/**
 * The provider's discovery document, as the server answers it behind a proxy: its APP_URL
 * (https://accounts.example.com) is not the address the browser opened (http://localhost).
 */
const discovery = {
  issuer: 'https://accounts.example.com/oidc',
  authorization_endpoint: 'https://accounts.example.com/oidc/auth',
  token_endpoint: 'https://accounts.example.com/oidc/token',
  userinfo_endpoint: 'https://accounts.example.com/oidc/me',
  jwks_uri: 'https://accounts.example.com/oidc/jwks',
  end_session_endpoint: 'https://accounts.example.com/oidc/session/end',
  response_types_supported: ['code'],
}

/** What an app's team is given beside the client ID: the label of each field, and its value. */
const providerAddresses = {
  Issuer: 'https://accounts.example.com/oidc',
  'Discovery URL': 'https://accounts.example.com/oidc/.well-known/openid-configuration',
  'Authorization endpoint': 'https://accounts.example.com/oidc/auth',
  'Token endpoint': 'https://accounts.example.com/oidc/token',
  'UserInfo endpoint': 'https://accounts.example.com/oidc/me',
  'JWKS URI': 'https://accounts.example.com/oidc/jwks',
  'End session endpoint': 'https://accounts.example.com/oidc/session/end',
}

function answerDiscovery(api: FakeApi) {
  return api.on('GET /oidc/.well-known/openid-configuration', { status: 200, body: discovery })
}

function renderApplications(applications: Application[] = [wiki, phone], api: FakeApi = installFakeApi()) {
  answerDiscovery(api).on('GET /admin/applications', ok({ applications }))
  return { api, ...renderApp(<ApplicationsPage />, { url: '/admin/applications', user: admin }) }
}

/** Each of the provider's addresses is in `area`, under its label, with a Copy button of its own. */
async function expectProviderAddresses(area: HTMLElement) {
  await within(area).findByLabelText('Issuer')
  for (const [label, value] of Object.entries(providerAddresses)) {
    expect((within(area).getByLabelText(label) as HTMLInputElement).value, label).toBe(value)
    expect(within(area).getByRole('button', { name: `Copy ${label}` })).toBeTruthy()
  }
}

const row = (name: string) => screen.getByRole('link', { name }).closest('tr') as HTMLElement

async function fillNewApplication(user: ReturnType<typeof renderApp>['user'], redirectUris: string) {
  await user.click(await screen.findByRole('button', { name: 'New application' }))
  const dialog = await screen.findByRole('dialog', { name: 'New Application' })
  await user.type(within(dialog).getByLabelText('Name'), 'Team Wiki')
  await user.type(within(dialog).getByLabelText(/^Redirect URIs/), redirectUris)
  await user.click(within(dialog).getByRole('checkbox', { name: 'Developer' }))
  return dialog
}

describe('applications', () => {
  test('the list shows each application: name, client id, type, first-party, status, first redirect URI', async () => {
    renderApplications()
    expect(await screen.findByRole('heading', { name: 'Applications' })).toBeTruthy()
    await screen.findByRole('table', { name: 'Applications' })
    const headers = screen.getAllByRole('columnheader').map((cell) => cell.textContent)
    expect(headers).toEqual(['Name', 'Type', 'First-party', 'Status', 'Redirect URIs', 'Created', 'Actions'])
    const wikiRow = row('Team Wiki')
    expect(within(wikiRow).getByText(wiki.id)).toBeTruthy()
    expect(within(wikiRow).getByText('Confidential')).toBeTruthy()
    expect(within(wikiRow).getByText('Enabled')).toBeTruthy()
    expect(within(wikiRow).getByText('https://wiki.example.com/callback')).toBeTruthy()
    expect(within(wikiRow).getByText('+1 more')).toBeTruthy()
    expect(within(row('Phone App')).getByText('Disabled')).toBeTruthy()
    expect(within(row('Phone App')).getByText('Public')).toBeTruthy()
  })

  test('none yet: "No applications yet", what an application is, and where the guide for app teams is', async () => {
    renderApplications([])
    expect(await screen.findByText('No applications yet')).toBeTruthy()
    expect(screen.getByText(/An application is one of the company's apps/)).toBeTruthy()
    expect(screen.getByText(/gives its team the client ID, and this server's issuer and endpoints/)).toBeTruthy()
    expect(screen.getByText('docs/sign-in-with-accounts.md').closest('p')!.textContent).toBe(
      "The guide for app teams is in the product's source: docs/sign-in-with-accounts.md",
    )
  })

  test("each application's name opens its page", async () => {
    const { user, location } = renderApplications()
    await user.click(await screen.findByRole('link', { name: 'Team Wiki' }))
    expect(location().pathname).toBe(`/admin/applications/${wiki.id}`)
  })

  test("an application's page gives its team what it needs, as the server names it (APP_URL, not the browser's address)", async () => {
    const api = answerDiscovery(installFakeApi()).on('GET /admin/applications/:id', (request) =>
      request.params.id === wiki.id ? ok({ application: wiki }) : fail(404, 'Application not found', { code: 'NOT_FOUND' }),
    )
    const { user } = renderApp(<ApplicationPage />, { url: `/admin/applications/${wiki.id}`, path: '/admin/applications/:id', user: admin })
    expect(await screen.findByRole('heading', { level: 1, name: 'Team Wiki' })).toBeTruthy()
    expect((screen.getByLabelText('Client ID') as HTMLInputElement).value).toBe(wiki.id)
    const addresses = screen.getByRole('region', { name: 'Provider addresses' })
    await expectProviderAddresses(addresses)
    expect(api.callsTo('GET /oidc/.well-known/openid-configuration')).toHaveLength(1)

    await user.click(within(addresses).getByRole('button', { name: 'Copy Issuer' }))
    expect(await navigator.clipboard.readText()).toBe('https://accounts.example.com/oidc')
    await waitFor(() => expect(toastTexts()).toContain('Issuer copied'))
    await user.click(screen.getByRole('button', { name: 'Copy Client ID' }))
    expect(await navigator.clipboard.readText()).toBe(wiki.id)

    // How it is registered, beside it.
    expect(screen.getByText('https://wiki.example.com/other')).toBeTruthy()
    expect(screen.getByText('Every role')).toBeTruthy()
  })

  test('a service application with the scim scope shows the SCIM base URL as the server names it, and when it was last used', async () => {
    const directory: Application = { ...wiki, id: 'app_entraentraentraentrae', name: 'Entra ID', type: 'service', redirectUris: [], scopes: ['scim'] }
    const api = answerDiscovery(installFakeApi()).on('GET /admin/applications/:id', ok({ application: directory }))
    api.on('GET /scim/v2/ServiceProviderConfig', {
      status: 200,
      body: { meta: { resourceType: 'ServiceProviderConfig', location: 'https://accounts.example.com/scim/v2/ServiceProviderConfig' } },
    })
    const key = (id: string, lastUsedAt: string | null) => ({
      id,
      name: 'provisioning',
      createdAt: '2026-05-01T10:00:00.000Z',
      expiresAt: null,
      lastUsedAt,
      prefix: 'acc_sk_abcde',
    })
    api.on('GET /admin/applications/:id/keys', ok({ keys: [key('k1', '2026-05-02T08:00:00.000Z'), key('k2', null), key('k3', '2026-05-03T09:30:00.000Z')] }))
    const { user } = renderApp(<ApplicationPage />, { url: `/admin/applications/${directory.id}`, path: '/admin/applications/:id', user: admin })
    expect(await screen.findByRole('heading', { name: 'SCIM provisioning' })).toBeTruthy()
    await waitFor(() => expect((screen.getByLabelText('SCIM base URL') as HTMLInputElement).value).toBe('https://accounts.example.com/scim/v2'))
    expect(await screen.findByText(/^Last used .*2026/)).toBeTruthy()
    await user.click(screen.getByRole('button', { name: 'Copy SCIM base URL' }))
    expect(await navigator.clipboard.readText()).toBe('https://accounts.example.com/scim/v2')
  })

  test('other applications show no SCIM section', async () => {
    const scripts: Application = { ...wiki, id: 'app_scriptsscriptsscripts', name: 'Scripts', type: 'service', redirectUris: [], scopes: ['users:read'] }
    for (const application of [wiki, scripts]) {
      const api = answerDiscovery(installFakeApi())
        .on('GET /admin/applications/:id', ok({ application }))
        .on('GET /admin/applications/:id/keys', ok({ keys: [] }))
      const view = renderApp(<ApplicationPage />, { url: `/admin/applications/${application.id}`, path: '/admin/applications/:id', user: admin })
      expect(await screen.findByRole('heading', { level: 1, name: application.name })).toBeTruthy()
      expect(screen.queryByRole('heading', { name: 'SCIM provisioning' })).toBeNull()
      // A service application lists its API keys; an application that signs people in has none.
      if (application.type !== 'service') expect(api.callsTo('GET /admin/applications/:id/keys')).toHaveLength(0)
      view.unmount()
    }
  })

  test("an unknown application's page says so", async () => {
    answerDiscovery(installFakeApi()).on('GET /admin/applications/:id', fail(404, 'Application not found', { code: 'NOT_FOUND' }))
    renderApp(<ApplicationPage />, { url: '/admin/applications/app_gone', path: '/admin/applications/:id', user: admin })
    expect(await screen.findByText('Application not found')).toBeTruthy()
  })

  test('when the server cannot say its addresses, the page says so and tries again on request', async () => {
    const api = installFakeApi().on('GET /admin/applications/:id', ok({ application: wiki }))
    api.on('GET /oidc/.well-known/openid-configuration', { status: 503, body: { error: 'server_error' } })
    const { user } = renderApp(<ApplicationPage />, { url: `/admin/applications/${wiki.id}`, path: '/admin/applications/:id', user: admin })
    expect(await screen.findByText("Failed to load the provider's addresses. Please try again.")).toBeTruthy()
    answerDiscovery(api)
    await user.click(screen.getByRole('button', { name: 'Retry' }))
    await expectProviderAddresses(screen.getByRole('region', { name: 'Provider addresses' }))
  })

  test('a command-line tool: a public application with the “Device sign-in” switch on needs no redirect URI', async () => {
    const { api, user } = renderApplications([])
    api.on('POST /admin/applications', (request) => ({
      status: 201,
      body: { success: true, data: { application: { ...phone, ...(request.body as object) } } },
    }))
    await user.click(await screen.findByRole('button', { name: 'New application' }))
    const dialog = await screen.findByRole('dialog', { name: 'New Application' })
    await user.type(within(dialog).getByLabelText('Name'), 'Deploy CLI')
    await user.click(within(dialog).getByRole('radio', { name: 'Public' }))
    await user.click(within(dialog).getByRole('switch', { name: 'Device sign-in' }))
    await user.click(within(dialog).getByRole('button', { name: 'Create application' }))
    await waitFor(() => expect(api.callsTo('POST /admin/applications')).toHaveLength(1))
    expect(api.callsTo('POST /admin/applications')[0]!.body).toMatchObject({ name: 'Deploy CLI', type: 'public', redirectUris: [], deviceFlow: true })
  })

  test('creating one sends the form as the API takes it, then shows the client id and the secret once, with Copy', async () => {
    const { api, user } = renderApplications([])
    api.on('POST /admin/applications', (request) => ({
      status: 201,
      body: { success: true, data: { application: { ...wiki, ...(request.body as object) }, clientSecret: 'the-secret-shown-once' } },
    }))
    const dialog = await fillNewApplication(user, 'https://wiki.example.com/callback\n\n https://wiki.example.com/other ')
    await user.click(within(dialog).getByRole('button', { name: 'Create application' }))

    const credentials = await screen.findByRole('dialog', { name: 'Client Credentials' })
    expect(api.callsTo('POST /admin/applications')[0]!.body).toEqual({
      name: 'Team Wiki',
      type: 'confidential',
      redirectUris: ['https://wiki.example.com/callback', 'https://wiki.example.com/other'],
      postLogoutRedirectUris: [],
      backchannelLogoutUri: null,
      allowedRoles: ['DEVELOPER'],
      firstParty: false,
      deviceFlow: false,
    })
    expect((within(credentials).getByLabelText('Client ID') as HTMLInputElement).value).toBe(wiki.id)
    expect((within(credentials).getByLabelText('Client secret') as HTMLInputElement).value).toBe('the-secret-shown-once')
    expect(within(credentials).getByRole('alert').textContent).toContain('it will not be shown again')
    await expectProviderAddresses(credentials)
    await user.click(within(credentials).getByRole('button', { name: 'Copy Client secret' }))
    expect(await navigator.clipboard.readText()).toBe('the-secret-shown-once')
    await waitFor(() => expect(toastTexts()).toContain('Client secret copied'))

    // Once closed, the secret is nowhere on the page.
    await user.click(within(credentials).getByRole('button', { name: 'Done' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(screen.queryByDisplayValue('the-secret-shown-once')).toBeNull()
    expect(document.body.textContent).not.toContain('the-secret-shown-once')
  })

  test('a service application: its scopes with the line each allows, no sign-in settings; its secret shown once', async () => {
    const { api, user } = renderApplications([])
    api.on('POST /admin/applications', (request) => ({
      status: 201,
      body: { success: true, data: { application: { ...wiki, ...(request.body as object), redirectUris: [], jwks: null }, clientSecret: 'service-secret' } },
    }))
    await user.click(await screen.findByRole('button', { name: 'New application' }))
    const dialog = await screen.findByRole('dialog', { name: 'New Application' })
    await user.type(within(dialog).getByLabelText('Name'), 'Payroll Sync')
    await user.click(within(dialog).getByRole('radio', { name: 'Service' }))
    expect(within(dialog).queryByLabelText(/^Redirect URIs/)).toBeNull()
    const usersRead = within(dialog).getByRole('checkbox', { name: 'users:read' })
    expect(usersRead.getAttribute('aria-describedby')).toBeTruthy()
    expect(within(dialog).getByText('Read users, their list and export, and the dashboard figures')).toBeTruthy()
    await user.click(within(dialog).getByRole('button', { name: 'Create application' }))
    expect(await within(dialog).findByText('Choose at least one scope')).toBeTruthy()
    expect(api.callsTo('POST /admin/applications')).toHaveLength(0)

    await user.click(usersRead)
    await user.click(within(dialog).getByRole('checkbox', { name: 'users:write' }))
    await user.click(within(dialog).getByRole('button', { name: 'Create application' }))
    const credentials = await screen.findByRole('dialog', { name: 'Client Credentials' })
    expect(api.callsTo('POST /admin/applications')[0]!.body).toEqual({ name: 'Payroll Sync', type: 'service', scopes: ['users:read', 'users:write'] })
    expect((within(credentials).getByLabelText('Client secret') as HTMLInputElement).value).toBe('service-secret')
  })

  test("a service application's page lists its API keys, creates one shown once with Copy, and deletes one", async () => {
    const service: Application = { ...wiki, id: 'app_service', name: 'Payroll Sync', type: 'service', redirectUris: [], scopes: ['users:read'] }
    const key = { id: 'k1', name: 'Nightly export', createdAt: '2026-05-01T10:00:00.000Z', expiresAt: null, lastUsedAt: null, prefix: 'acc_sk_AbCdE' }
    let keys = [key]
    const api = answerDiscovery(installFakeApi())
      .on('GET /admin/applications/:id', ok({ application: service }))
      .on('GET /admin/applications/:id/keys', () => ok({ keys }))
      .on('POST /admin/applications/:id/keys', (request) => {
        const created = { ...key, id: 'k2', name: (request.body as { name: string }).name, prefix: 'acc_sk_ZyXwV' }
        keys = [...keys, created]
        return { status: 201, body: { success: true, data: { key: created, secret: 'acc_sk_ZyXwVsecret' } } }
      })
      .on('DELETE /admin/applications/:id/keys/:keyId', (request) => {
        keys = keys.filter((k) => k.id !== request.params.keyId)
        return ok()
      })
    const { user } = renderApp(<ApplicationPage />, { url: `/admin/applications/${service.id}`, path: '/admin/applications/:id', user: admin })
    const table = await screen.findByRole('table', { name: 'API keys' })
    expect(within(table).getByText('acc_sk_AbCdE…')).toBeTruthy()
    expect(within(table).getByText('Never')).toBeTruthy()
    expect(within(table).getByText('Does not expire')).toBeTruthy()
    expect(screen.getByText('users:read')).toBeTruthy()

    await user.type(screen.getByLabelText('Key name'), 'HR import')
    await user.click(screen.getByRole('button', { name: 'Create key' }))
    const shown = await screen.findByRole('dialog', { name: 'New API Key' })
    expect(api.callsTo('POST /admin/applications/:id/keys')[0]!.body).toEqual({ name: 'HR import' })
    expect((within(shown).getByLabelText('API key') as HTMLInputElement).value).toBe('acc_sk_ZyXwVsecret')
    await user.click(within(shown).getByRole('button', { name: 'Copy API key' }))
    expect(await navigator.clipboard.readText()).toBe('acc_sk_ZyXwVsecret')
    await user.click(within(shown).getByRole('button', { name: 'Done' }))
    await waitFor(() => expect(document.body.textContent).not.toContain('acc_sk_ZyXwVsecret'))

    await user.click(await screen.findByRole('button', { name: 'Delete key Nightly export' }))
    const confirm = await screen.findByRole('dialog', { name: 'Delete API Key' })
    await user.click(within(confirm).getByRole('button', { name: 'Delete key' }))
    await waitFor(() => expect(api.callsTo('DELETE /admin/applications/:id/keys/:keyId')).toHaveLength(1))
    await waitFor(() => expect(screen.queryByText('acc_sk_AbCdE…')).toBeNull())
  })

  test("the form checks the fields with the server's rules before sending", async () => {
    const { api, user } = renderApplications([])
    const dialog = await fillNewApplication(user, 'http://wiki.example.com/callback')
    await user.click(within(dialog).getByRole('button', { name: 'Create application' }))
    expect(await screen.findByText('Redirect URI must use https, or http on localhost, 127.0.0.1 or [::1]')).toBeTruthy()
    expect(api.callsTo('POST /admin/applications')).toHaveLength(0)
  })

  test('a 400 from the server shows its message at the field', async () => {
    const { api, user } = renderApplications([])
    api.on(
      'POST /admin/applications',
      fail(400, 'Redirect URI must not contain a fragment (#)', {
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'redirectUris.0', message: 'Redirect URI must not contain a fragment (#)' }],
      }),
    )
    const dialog = await fillNewApplication(user, 'https://wiki.example.com/callback')
    await user.click(within(dialog).getByRole('button', { name: 'Create application' }))
    await waitFor(() => expect(fieldError(/^Redirect URIs/)).toBe('Redirect URI must not contain a fragment (#)'))
    expect(screen.getByRole('dialog', { name: 'New Application' })).toBeTruthy()
  })

  test('delete asks for confirmation first, then deletes', async () => {
    const { api, user } = renderApplications()
    api.on('DELETE /admin/applications/:id', ok(undefined, 'Application deleted'))
    await user.click(await screen.findByRole('button', { name: 'Actions for Team Wiki' }))
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }))
    const confirm = await screen.findByRole('dialog', { name: 'Delete Application' })
    expect(confirm.textContent).toContain('Delete Team Wiki?')
    expect(api.callsTo('DELETE /admin/applications/:id')).toHaveLength(0)
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    expect(api.callsTo('DELETE /admin/applications/:id')).toHaveLength(0)

    await user.click(screen.getByRole('button', { name: 'Actions for Team Wiki' }))
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }))
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete Application' })).getByRole('button', { name: 'Delete application' }))
    await waitFor(() => expect(api.callsTo('DELETE /admin/applications/:id')).toHaveLength(1))
    expect(api.callsTo('DELETE /admin/applications/:id')[0]!.params.id).toBe(wiki.id)
    await waitFor(() => expect(toastTexts()).toContain('Application deleted'))
  })

  test('replacing the secret asks first, then shows the new one once', async () => {
    const { api, user } = renderApplications()
    api.on('POST /admin/applications/:id/secret', ok({ clientSecret: 'a-new-secret' }))
    await user.click(await screen.findByRole('button', { name: 'Actions for Team Wiki' }))
    await user.click(await screen.findByRole('menuitem', { name: 'Replace secret' }))
    await user.click(within(await screen.findByRole('dialog', { name: 'Replace Client Secret' })).getByRole('button', { name: 'Replace secret' }))
    const credentials = await screen.findByRole('dialog', { name: 'Client Credentials' })
    expect((within(credentials).getByLabelText('Client secret') as HTMLInputElement).value).toBe('a-new-secret')
    await expectProviderAddresses(credentials)
  })

  test('a public application has no secret to replace; disabling sends enabled: false', async () => {
    const { api, user } = renderApplications()
    api.on('PUT /admin/applications/:id', (request) => ok({ application: { ...wiki, ...(request.body as object) } }))
    await user.click(await screen.findByRole('button', { name: 'Actions for Phone App' }))
    const menu = await screen.findByRole('menu')
    expect(within(menu).queryByRole('menuitem', { name: 'Replace secret' })).toBeNull()
    await user.keyboard('{Escape}')
    await user.click(screen.getByRole('button', { name: 'Actions for Team Wiki' }))
    await user.click(await screen.findByRole('menuitem', { name: 'Disable' }))
    await waitFor(() => expect(api.callsTo('PUT /admin/applications/:id')[0]?.body).toEqual({ enabled: false }))
    await waitFor(() => expect(toastTexts()).toContain('Team Wiki is disabled'))
  })
})
