import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import type { ActivityEntry } from '~shared/schemas/lists'
import { ActivityLogsPage } from '~web/features/activity-logs/components/activity-logs-page'
import { AdminDashboardPage } from '~web/features/admin-dashboard/components/admin-dashboard-page'
import { MyActivityPage } from '~web/features/my-activity/components/my-activity-page'
import { setLanguage } from '~web/lib/i18n'
import { fail, installFakeApi, ok } from './support/fake-api'
import { settle } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const staff = makeUser({ role: 'MODERATOR' })
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()

function entry(overrides: Partial<ActivityEntry> = {}): ActivityEntry {
  return { id: crypto.randomUUID(), activity: 'Logged in', details: null, ipAddress: '203.0.113.9', createdAt: minutesAgo(5), ...overrides }
}

const page = (activities: ActivityEntry[], pagination = { page: 1, limit: 20, total: activities.length, pages: 1 }) => ok({ activities, pagination })

describe('activity logs', () => {
  test('each entry: avatar, activity, first-word badge, user (or Unknown User), role (CLIENT by default), e-mail, details, IP and times', async () => {
    installFakeApi().on(
      'GET /admin/activity-logs',
      page([
        entry({
          activity: 'Changed role of Bob',
          details: 'CLIENT to MODERATOR',
          user: { id: '1', name: 'Ada Admin', email: 'ada@example.com', role: 'ADMIN', profilePicture: null },
        }),
        entry({ activity: 'Deleted user bob@example.com', user: null, createdAt: minutesAgo(0) }),
      ]),
    )
    renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs', user: staff })
    const list = await screen.findByRole('list', { name: 'Activity entries' })
    const [first, second] = within(list).getAllByRole('listitem')
    expect(first!.textContent).toContain('Changed role of Bob')
    expect(within(first!).getByText('Changed', { exact: true })).toBeTruthy()
    expect(first!.textContent).toContain('Ada Admin')
    expect(within(first!).getByText('Admin')).toBeTruthy()
    expect(first!.textContent).toContain('ada@example.com')
    expect(first!.textContent).toContain('CLIENT to MODERATOR')
    expect(first!.textContent).toContain('IP address: 203.0.113.9')
    expect(first!.textContent).toContain('5 minutes ago')
    expect(within(second!).getByText('Unknown User')).toBeTruthy()
    expect(within(second!).getByText('Client')).toBeTruthy()
    expect(within(second!).getByText('Deleted', { exact: true })).toBeTruthy()
    expect(second!.textContent).toContain('Just now')
    expect(screen.getByText('Page 1 of 1')).toBeTruthy()
  })

  test('Previous/Next with "Page x of y"; a filter goes back to page 1 and is sent', async () => {
    const api = installFakeApi().on('GET /admin/activity-logs', (request) => {
      const current = Number(request.query.get('page'))
      return page([entry({ activity: `Logged in ${current}` })], { page: current, limit: 20, total: 45, pages: 3 })
    })
    const { user } = renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs', user: staff })
    await screen.findByText('Page 1 of 3')
    expect((screen.getByRole('button', { name: 'Previous' }) as HTMLButtonElement).disabled).toBe(true)
    await user.click(screen.getByRole('button', { name: 'Next' }))
    await screen.findByText('Page 2 of 3')
    await user.selectOptions(screen.getByLabelText('Activity type'), 'logged out')
    await screen.findByText('Page 1 of 3')
    expect(api.calls.at(-1)!.query.toString()).toBe('page=1&limit=20&activity=logged+out')
    expect(api.calls.map((call) => call.query.get('page'))).toEqual(['1', '2', '1'])
  })

  test('the activity filter offers the spec choices, then the security entries (two-factor) and the applications', async () => {
    installFakeApi().on('GET /admin/activity-logs', page([]))
    renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs', user: staff })
    const options = within(screen.getByLabelText('Activity type'))
      .getAllByRole('option')
      .map((option) => option.textContent)
    expect(options).toEqual([
      'All activities',
      'Login',
      'Registration',
      'Updates',
      'Deletions',
      'Email Verification',
      'Password Reset',
      'Logout',
      'Security',
      'Applications',
    ])
  })

  test('empty: "No activity logs available", or "Try adjusting your filters" when filtered', async () => {
    installFakeApi().on('GET /admin/activity-logs', page([]))
    const { user } = renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs', user: staff })
    expect(await screen.findByText('No activities found')).toBeTruthy()
    expect(screen.getByText('No activity logs available')).toBeTruthy()
    await user.type(screen.getByLabelText('Search activities'), 'zzz')
    expect(await screen.findByText('Try adjusting your filters')).toBeTruthy()
  })

  test('a load failure: the error card with Retry', async () => {
    const api = installFakeApi().on('GET /admin/activity-logs', { status: 500 })
    const { user } = renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs', user: staff })
    expect(await screen.findByText('Error Loading Activity Logs')).toBeTruthy()
    expect(screen.getByText('Failed to load activity logs. Please try again.')).toBeTruthy()
    expect(api.calls).toHaveLength(2)
    api.on('GET /admin/activity-logs', page([entry()]))
    await user.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('list', { name: 'Activity entries' })).toBeTruthy()
  })
})

describe('entries in the interface language', () => {
  const ada = { id: '1', name: 'Ada Admin', email: 'ada@example.com', role: 'ADMIN' as const, profilePicture: null }
  const entries = [
    entry({ activity: 'Logged in', user: ada }),
    entry({ activity: 'Failed login', details: 'Wrong password', user: ada }),
    entry({ activity: 'Deleted user Bob (Junior) (bob@example.com)', details: 'role: CLIENT; status: INACTIVE', user: ada }),
    entry({ activity: 'Updated account to MODERATOR', user: ada }),
    entry({ activity: 'Something only a newer server writes', user: ada }),
    entry({ activity: 'Failed login', details: 'Account is suspended', user: ada }),
    entry({ activity: 'Imported from mern-ums', details: 'users.json, line 12', user: ada }),
    entry({ activity: 'Upgraded password storage', details: 'bcrypt → Argon2id', user: ada }),
    entry({ activity: 'Created by SCIM (Entra ID)', details: 'role: CLIENT; status: ACTIVE', user: ada }),
  ]
  const expected = {
    fr: [
      ['Connexion', 'Session'],
      ['Échec de connexion', 'Échec', 'Mot de passe incorrect'],
      ['Utilisateur Bob (Junior) (bob@example.com) supprimé', 'Supprimé', 'role: CLIENT; status: INACTIVE'],
      ['Compte passé en Modérateur', 'Mis à jour'],
      ['Something only a newer server writes', 'Something'],
      ['Échec de connexion', 'Échec', 'Le compte est suspendu'],
      ['Importé depuis mern-ums', 'Importé', 'users.json, line 12'],
      ['Stockage du mot de passe mis à niveau', 'Mis à niveau', 'bcrypt → Argon2id'],
      ['Créé par SCIM (Entra ID)', 'Créé', 'role: CLIENT; status: ACTIVE'],
    ],
    es: [
      ['Sesión iniciada', 'Sesión'],
      ['Inicio de sesión fallido', 'Fallido', 'Contraseña incorrecta'],
      ['Usuario Bob (Junior) (bob@example.com) eliminado', 'Eliminado', 'role: CLIENT; status: INACTIVE'],
      ['Cuenta cambiada a Moderador', 'Actualizado'],
      ['Something only a newer server writes', 'Something'],
      ['Inicio de sesión fallido', 'Fallido', 'La cuenta está suspendida'],
      ['Importado desde mern-ums', 'Importado', 'users.json, line 12'],
      ['Almacenamiento de la contraseña actualizado', 'Actualizado', 'bcrypt → Argon2id'],
      ['Creado por SCIM (Entra ID)', 'Creado', 'role: CLIENT; status: ACTIVE'],
    ],
    de: [
      ['Angemeldet', 'Sitzung'],
      ['Anmeldung fehlgeschlagen', 'Fehlgeschlagen', 'Falsches Passwort'],
      ['Benutzer Bob (Junior) (bob@example.com) gelöscht', 'Gelöscht', 'role: CLIENT; status: INACTIVE'],
      ['Konto geändert zu Moderator', 'Aktualisiert'],
      ['Something only a newer server writes', 'Something'],
      ['Anmeldung fehlgeschlagen', 'Fehlgeschlagen', 'Das Konto ist gesperrt'],
      ['Importiert aus mern-ums', 'Importiert', 'users.json, line 12'],
      ['Passwortspeicherung erneuert', 'Erneuert', 'bcrypt → Argon2id'],
      ['Von SCIM erstellt (Entra ID)', 'Erstellt', 'role: CLIENT; status: ACTIVE'],
    ],
    en: [
      ['Logged in', 'Logged'],
      ['Failed login', 'Failed', 'Wrong password'],
      ['Deleted user Bob (Junior) (bob@example.com)', 'Deleted', 'role: CLIENT; status: INACTIVE'],
      ['Updated account to MODERATOR', 'Updated'],
      ['Something only a newer server writes', 'Something'],
      ['Failed login', 'Failed', 'Account is suspended'],
      ['Imported from mern-ums', 'Imported', 'users.json, line 12'],
      ['Upgraded password storage', 'Upgraded', 'bcrypt → Argon2id'],
      ['Created by SCIM (Entra ID)', 'Created', 'role: CLIENT; status: ACTIVE'],
    ],
  } as const

  test.each(Object.keys(expected) as (keyof typeof expected)[])('%s: the known texts, badges and fixed details translated, anything else as sent', async (language) => {
    await setLanguage(language)
    installFakeApi().on('GET /admin/activity-logs', page(entries))
    renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs', user: staff })
    const list = await screen.findByRole('list', { name: language === 'en' ? 'Activity entries' : /./ })
    const items = within(list).getAllByRole('listitem')
    expect(items).toHaveLength(entries.length)
    expected[language].forEach(([text, badge, details], index) => {
      const item = items[index]!
      expect(item.querySelector('p.font-medium')!.textContent, `entry ${index + 1}`).toBe(text)
      expect(within(item).getByText(badge, { exact: true }), `badge ${index + 1}`).toBeTruthy()
      if (details) expect(within(item).getByText(details, { exact: true }), `details ${index + 1}`).toBeTruthy()
    })
  })
})

describe('my activity', () => {
  test('own entries, searched after 500 ms with the search sent', async () => {
    const api = installFakeApi().on('GET /activity', page([entry({ activity: 'Updated profile' })]))
    const { user } = renderApp(<MyActivityPage />, { url: '/my-activity', user: staff })
    expect(await screen.findByText('Updated profile')).toBeTruthy()
    await user.type(screen.getByLabelText('Search activities'), 'profile')
    await waitFor(() => expect(api.calls.at(-1)!.query.get('search')).toBe('profile'), { timeout: 1500 })
    expect(api.calls.at(-1)!.query.has('activity')).toBe(false)
  })

  test('a load failure: the spec text and Retry', async () => {
    installFakeApi().on('GET /activity', fail(503, 'The service is temporarily unavailable. Please try again shortly.'))
    renderApp(<MyActivityPage />, { url: '/my-activity', user: staff })
    expect(await screen.findByText('Failed to load your activity logs. Please try again.')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy()
  })
})

describe('admin dashboard', () => {
  const stats = (recentActivities: ActivityEntry[]) =>
    ok({
      stats: {
        totalUsers: 12,
        byStatus: { active: 9, inactive: 3, suspended: 1 },
        byRole: { admins: 2, developers: 3, moderators: 1, clients: 6 },
        unverified: 4,
        mfaEnabled: 5,
      },
      signUps: Array.from({ length: 30 }, (_, index) => ({ date: `2026-11-${String(index + 1).padStart(2, '0')}`, count: index === 19 ? 7 : index % 3 })),
      recentActivities,
    })

  test('cards, role distribution, quick links, and the first 5 recent entries with "View All Activities"', async () => {
    installFakeApi().on('GET /admin/stats', stats(Array.from({ length: 6 }, (_, index) => entry({ activity: `Logged in #${index + 1}` }))))
    renderApp(<AdminDashboardPage />, { url: '/admin', user: makeUser({ role: 'ADMIN' }) })
    const total = await screen.findByRole('heading', { name: 'Total Users' })
    expect(total.parentElement!.textContent).toContain('12')
    expect(screen.getByRole('heading', { name: 'Active Users' }).parentElement!.textContent).toContain('9')
    expect(screen.getByRole('heading', { name: 'Inactive Users' }).parentElement!.textContent).toContain('3')
    expect(screen.getByRole('heading', { name: 'Administrators' }).parentElement!.textContent).toContain('2')
    expect(screen.getByText('Clients').nextElementSibling!.textContent).toBe('6')
    expect(screen.getByRole('heading', { name: 'Unverified' }).parentElement!.textContent).toContain('4')
    expect(screen.getByRole('heading', { name: 'Two-factor on' }).parentElement!.textContent).toContain('5')
    // The chart's text alternative: a summary, and the numbers as a table.
    expect(screen.getByRole('figure').textContent).toContain('Nov 20, 2026 (7)')
    const table = screen.getByRole('table', { name: 'Sign-ups, last 30 days' })
    expect(within(table).getAllByRole('row')).toHaveLength(31)
    expect(within(table).getByRole('rowheader', { name: 'Nov 20, 2026' }).nextElementSibling!.textContent).toBe('7')
    const recent = screen.getByRole('list', { name: 'Recent Activity' })
    expect(within(recent).getAllByRole('listitem')).toHaveLength(5)
    expect(screen.getByRole('link', { name: 'View All Activities' }).getAttribute('href')).toBe('/admin/activity-logs')
    expect(screen.getByRole('link', { name: 'Manage users' }).getAttribute('href')).toBe('/admin/users')
    expect(screen.getByRole('link', { name: 'My profile' }).getAttribute('href')).toBe('/profile')
  })

  test('five or fewer entries: no "View All Activities"; none: "No recent activity"', async () => {
    installFakeApi().on('GET /admin/stats', stats([]))
    renderApp(<AdminDashboardPage />, { url: '/admin', user: makeUser({ role: 'ADMIN' }) })
    expect(await screen.findByText('No recent activity')).toBeTruthy()
    expect(screen.queryByRole('link', { name: 'View All Activities' })).toBeNull()
  })

  test('a load failure: "Error Loading Dashboard" with Retry', async () => {
    const api = installFakeApi().on('GET /admin/stats', { status: 500 })
    const { user } = renderApp(<AdminDashboardPage />, { url: '/admin', user: makeUser({ role: 'ADMIN' }) })
    expect(await screen.findByText('Error Loading Dashboard')).toBeTruthy()
    expect(screen.getByText('Failed to load dashboard data. Please try again.')).toBeTruthy()
    api.on('GET /admin/stats', stats([]))
    await user.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('heading', { name: 'Total Users' })).toBeTruthy()
    await settle()
  })
})
