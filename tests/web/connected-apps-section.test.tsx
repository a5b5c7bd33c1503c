import { screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { ConnectedAppsSection } from '~web/features/security/components/connected-apps-section'
import { activityText, badgeText } from '~web/components/activity/activity-text'
import { setLanguage, t } from '~web/lib/i18n'
import { fail, installFakeApi, ok } from './support/fake-api'
import { toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

/**
 * The Security tab's Connected apps, against a fake API: what each app may see in the consent
 * page's words, when it was allowed and last used, and "Remove access" after a confirmation.
 */
const NOW = new Date('2026-06-10T12:00:00.000Z')
const wiki = {
  id: 'wiki',
  name: 'Team Wiki',
  scopes: ['openid', 'profile', 'email', 'offline_access'],
  grantedAt: '2026-06-07T12:00:00.000Z',
  lastUsedAt: '2026-06-10T09:00:00.000Z',
}
const dashboard = { id: 'dash', name: 'Sales Dashboard', scopes: ['openid'], grantedAt: '2026-06-10T11:30:00.000Z', lastUsedAt: null }

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ['Date'] })
})
afterEach(() => {
  vi.useRealTimers()
})

function renderSection(applications = [wiki, dashboard]) {
  const api = installFakeApi()
  let current = [...applications]
  api.on('GET /auth/applications', () => ok({ applications: current }))
  api.on('DELETE /auth/applications/:id', (request) => {
    if (!current.some((app) => app.id === request.params.id)) return fail(404, 'Application not found', { code: 'APPLICATION_NOT_FOUND' })
    current = current.filter((app) => app.id !== request.params.id)
    return { status: 200, body: { success: true, message: 'Access removed' } }
  })
  return { api, ...renderApp(<ConnectedAppsSection />, { url: '/profile', user: makeUser() }) }
}

describe('connected apps section', () => {
  test('lists each app with what it may see, when it was allowed and last used', async () => {
    renderSection()
    const list = await screen.findByRole('list', { name: 'Your connected apps' })
    const [first, second] = within(list)
      .getAllByRole('listitem')
      .filter((item) => item.parentElement === list)
    expect(within(first!).getByText('Team Wiki')).toBeTruthy()
    expect(
      within(within(first!).getByRole('list', { name: 'What Team Wiki may see' }))
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['See your name and profile picture', 'See your e-mail address', 'Stay signed in (keep access when you are away)'])
    expect(first!.textContent).toContain('Allowed: 3 days ago · Last used: 3 hours ago')
    expect(within(within(second!).getByRole('list', { name: 'What Sales Dashboard may see' })).getByRole('listitem').textContent).toBe('Know who you are')
    expect(second!.textContent).toContain('Allowed: 30 minutes ago · Not used yet')
  })

  test('says so when no app was allowed', async () => {
    renderSection([])
    expect(await screen.findByText('You have not allowed any app yet.')).toBeTruthy()
  })

  test('removes an app’s access after a confirmation that names it; Cancel removes nothing', async () => {
    const { api, user } = renderSection()
    await user.click(await screen.findByRole('button', { name: 'Remove access of Team Wiki' }))
    let dialog = screen.getByRole('dialog', { name: 'Remove this app’s access?' })
    expect(dialog.textContent).toContain('Team Wiki will be signed out of your account and will have to ask for your permission again next time.')
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(api.callsTo('DELETE /auth/applications/:id')).toHaveLength(0)

    await user.click(screen.getByRole('button', { name: 'Remove access of Team Wiki' }))
    dialog = screen.getByRole('dialog', { name: 'Remove this app’s access?' })
    await user.click(within(dialog).getByRole('button', { name: 'Remove access' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Access of Team Wiki removed']))
    expect(api.callsTo('DELETE /auth/applications/:id')[0]!.params.id).toBe('wiki')
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Remove access of Team Wiki' })).toBeNull())
    expect(screen.getByRole('button', { name: 'Remove access of Sales Dashboard' })).toBeTruthy()
    await waitFor(() => expect(document.activeElement?.id).toBe('connected-apps-title'))
  })

  test('a failed removal says so and keeps the app', async () => {
    const { api, user } = renderSection()
    api.on('DELETE /auth/applications/:id', fail(500, 'Internal server error', { code: 'INTERNAL_ERROR' }))
    await user.click(await screen.findByRole('button', { name: 'Remove access of Team Wiki' }))
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Remove access' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Internal server error']))
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' }))
    expect(screen.getByRole('button', { name: 'Remove access of Team Wiki' })).toBeTruthy()
  })

  test('speaks the chosen language', async () => {
    await setLanguage('de')
    renderSection([wiki])
    expect(await screen.findByRole('heading', { name: 'Verbundene Apps' })).toBeTruthy()
    expect(await screen.findByText('Ihre E-Mail-Adresse sehen')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Zugriff von Team Wiki entfernen' })).toBeTruthy()
  })

  test('the activity entries of allowing an app and removing its access read in the chosen language', async () => {
    await setLanguage('fr')
    expect(activityText('Removed access of Team Wiki', { t, lang: 'fr' })).toBe('Accès de Team Wiki retiré')
    expect(activityText('Allowed Team Wiki', { t, lang: 'fr' })).toBe('Team Wiki autorisée')
    expect(badgeText('Allowed', { t })).toBe('Autorisé')
  })
})
