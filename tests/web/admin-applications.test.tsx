import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import type { Application } from '~shared/schemas/applications'
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
  enabled: true,
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

function renderApplications(applications: Application[] = [wiki, phone], api: FakeApi = installFakeApi()) {
  api.on('GET /admin/applications', ok({ applications }))
  return { api, ...renderApp(<ApplicationsPage />, { url: '/admin/applications', user: admin }) }
}

const row = (name: string) => screen.getByText(name, { selector: 'span' }).closest('tr') as HTMLElement

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

  test('none yet: "No applications yet"', async () => {
    renderApplications([])
    expect(await screen.findByText('No applications yet')).toBeTruthy()
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
    })
    expect((within(credentials).getByLabelText('Client ID') as HTMLInputElement).value).toBe(wiki.id)
    expect((within(credentials).getByLabelText('Client secret') as HTMLInputElement).value).toBe('the-secret-shown-once')
    expect(within(credentials).getByRole('alert').textContent).toContain('it will not be shown again')
    await user.click(within(credentials).getByRole('button', { name: 'Copy Client secret' }))
    expect(await navigator.clipboard.readText()).toBe('the-secret-shown-once')
    await waitFor(() => expect(toastTexts()).toContain('Client secret copied'))

    // Once closed, the secret is nowhere on the page.
    await user.click(within(credentials).getByRole('button', { name: 'Done' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(screen.queryByDisplayValue('the-secret-shown-once')).toBeNull()
    expect(document.body.textContent).not.toContain('the-secret-shown-once')
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
