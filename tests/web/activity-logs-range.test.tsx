import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import { ActivityLogsPage } from '~web/features/activity-logs/components/activity-logs-page'
import { installFakeApi, ok } from './support/fake-api'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const empty = ok({ activities: [], pagination: { page: 1, limit: 20, total: 0, pages: 0 } })

/** The staff log's date range (in the address) and its export, offered to admins only. */
describe('activity logs: date range and export', () => {
  test('the range comes from the address and goes to the API; a change is a new address', async () => {
    const api = installFakeApi().on('GET /admin/activity-logs', empty)
    const { location } = renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs?from=2026-03-01&to=2026-03-31', user: makeUser({ role: 'ADMIN' }) })
    await screen.findByText('No activities found')
    expect(api.calls[0]!.query.toString()).toBe('page=1&limit=20&from=2026-03-01&to=2026-03-31')
    const from = screen.getByLabelText('From') as HTMLInputElement
    expect(from.value).toBe('2026-03-01')
    expect(from.max).toBe('2026-03-31')
    expect((screen.getByLabelText('To') as HTMLInputElement).min).toBe('2026-03-01')
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-03-15' } })
    await waitFor(() => expect(api.calls.at(-1)!.query.toString()).toBe('page=1&limit=20&from=2026-03-01&to=2026-03-15'))
    expect(location().search).toBe('?from=2026-03-01&to=2026-03-15')
  })

  test('a range that is not a date in the address is left out', async () => {
    const api = installFakeApi().on('GET /admin/activity-logs', empty)
    renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs?from=yesterday&to=2026-13', user: makeUser({ role: 'ADMIN' }) })
    await screen.findByText('No activities found')
    expect(api.calls[0]!.query.toString()).toBe('page=1&limit=20')
  })

  test('Export CSV is offered to admins, not to other staff', async () => {
    installFakeApi().on('GET /admin/activity-logs', empty)
    const admin = renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs', user: makeUser({ role: 'ADMIN' }) })
    await screen.findByText('No activities found')
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeTruthy()
    admin.unmount()
    installFakeApi().on('GET /admin/activity-logs', empty)
    renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs', user: makeUser({ role: 'MODERATOR' }) })
    await screen.findByText('No activities found')
    expect(screen.queryByRole('button', { name: 'Export CSV' })).toBeNull()
  })
})
