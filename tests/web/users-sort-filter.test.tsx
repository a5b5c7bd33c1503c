import { act, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import type { AdminUser } from '~shared/schemas/lists'
import { UsersPage } from '~web/features/admin-users/components/users-page'
import { installFakeApi, ok } from './support/fake-api'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const admin = makeUser({ name: 'Ada Admin', email: 'ada@example.com', role: 'ADMIN' })
const recent: AdminUser = { ...makeUser({ name: 'Rita Recent' }), lastSignInAt: new Date(Date.now() - 3 * 3_600_000).toISOString(), mfaEnabled: true }
const dormant: AdminUser = { ...makeUser({ name: 'Nora Never' }), lastSignInAt: null, mfaEnabled: false }

function renderUsers(url = '/admin/users') {
  const api = installFakeApi()
  api.on('GET /admin/users', ok({ users: [recent, dormant], pagination: { page: 1, limit: 10, total: 2, pages: 1 } }))
  return { api, ...renderApp(<UsersPage />, { url, path: '/admin/users', user: admin }) }
}

const header = (name: RegExp) => screen.getAllByRole('columnheader').find((cell) => name.test(cell.textContent ?? ''))!

describe('user management: sort, filters and the last sign-in', () => {
  test('shows the last sign-in as a relative time, or Never', async () => {
    renderUsers()
    await screen.findByRole('heading', { name: 'User Management (2)' })
    const row = (name: string) => screen.getByRole('cell', { name: new RegExp(name) }).closest('tr') as HTMLElement
    expect(within(row('Rita Recent')).getByText('3 hours ago')).toBeTruthy()
    expect(within(row('Nora Never')).getByText('Never')).toBeTruthy()
  })

  test("each header is named as the spec names its column, and so is its sort button; the order is the header's aria-sort (WAI-ARIA sortable table)", async () => {
    const { user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (2)' })
    const names = ['User', 'Role', 'Status', 'Email Verified', 'Created', 'Last sign-in', 'Actions']
    expect(names.map((name) => screen.getByRole('columnheader', { name }))).toEqual(screen.getAllByRole('columnheader'))
    for (const column of ['User', 'Role', 'Status', 'Created', 'Last sign-in']) {
      const cell = screen.getByRole('columnheader', { name: column })
      expect(within(cell).getAllByRole('button'), column).toEqual([within(cell).getByRole('button', { name: column })])
    }
    // A cell is read with its column's name, as the spec names it.
    expect(screen.getByRole('columnheader', { name: 'Role' }).hasAttribute('aria-sort')).toBe(false)
    await user.click(within(screen.getByRole('columnheader', { name: 'Role' })).getByRole('button', { name: 'Role' }))
    await waitFor(() => expect(screen.getByRole('columnheader', { name: 'Role' }).getAttribute('aria-sort')).toBe('ascending'))
    expect(screen.getByRole('columnheader', { name: 'Created' }).hasAttribute('aria-sort')).toBe(false)
    // The hint that headers with buttons sort is the table's, outside every name above.
    expect(screen.getByRole('table', { name: 'Users. Column headers with buttons sort the list.' })).toBeTruthy()
  })

  test('a column header sorts, says so with aria-sort, and a second press reverses', async () => {
    const { api, user, location } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (2)' })
    expect(header(/^Created/).getAttribute('aria-sort')).toBe('descending')
    expect(header(/^Last sign-in/).hasAttribute('aria-sort')).toBe(false)
    await user.click(screen.getByRole('button', { name: 'Last sign-in' }))
    await waitFor(() => expect(api.calls.at(-1)!.query.toString()).toBe('page=1&limit=10&sort=lastSignInAt'))
    expect(header(/^Last sign-in/).getAttribute('aria-sort')).toBe('descending')
    expect(header(/^Created/).hasAttribute('aria-sort')).toBe(false)
    expect(location().search).toBe('?sort=lastSignInAt')
    await user.click(screen.getByRole('button', { name: 'Last sign-in' }))
    await waitFor(() => expect(api.calls.at(-1)!.query.toString()).toBe('page=1&limit=10&sort=lastSignInAt&order=asc'))
    expect(header(/^Last sign-in/).getAttribute('aria-sort')).toBe('ascending')
    await user.click(screen.getByRole('button', { name: 'User' }))
    await waitFor(() => expect(api.calls.at(-1)!.query.toString()).toBe('page=1&limit=10&sort=name&order=asc'))
    expect(header(/^User/).getAttribute('aria-sort')).toBe('ascending')
  })

  test('filters and sort come from the address, so a bookmark opens the same view', async () => {
    const { api } = renderUsers('/admin/users?verified=false&mfa=true&inactive=90&sort=email&order=desc&role=CLIENT&search=ri&page=2')
    await screen.findByRole('heading', { name: 'User Management (2)' })
    expect(api.calls[0]!.query.toString()).toBe('page=2&limit=10&search=ri&role=CLIENT&verified=false&mfa=true&inactiveDays=90&sort=email')
    expect((screen.getByLabelText('Email verified') as HTMLSelectElement).value).toBe('false')
    expect((screen.getByLabelText('Two-factor') as HTMLSelectElement).value).toBe('true')
    expect((screen.getByLabelText('Last sign-in') as HTMLSelectElement).value).toBe('90')
    expect((screen.getByLabelText('Search users') as HTMLInputElement).value).toBe('ri')
  })

  test('an address value no filter offers counts as the default', async () => {
    const { api } = renderUsers('/admin/users?verified=maybe&inactive=7&sort=password&order=sideways')
    await screen.findByRole('heading', { name: 'User Management (2)' })
    expect(api.calls[0]!.query.toString()).toBe('page=1&limit=10')
  })

  test('a filter chosen while the search is settling keeps both', async () => {
    const { api, user, location } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (2)' })
    await user.type(screen.getByLabelText('Search users'), 'rita')
    await user.selectOptions(screen.getByLabelText('Two-factor'), 'true')
    await waitFor(() => expect(api.calls.at(-1)!.query.toString()).toBe('page=1&limit=10&search=rita&mfa=true'), { timeout: 2000 })
    expect(new URLSearchParams(location().search).get('search')).toBe('rita')
    expect(new URLSearchParams(location().search).get('mfa')).toBe('true')
    expect((screen.getByLabelText('Search users') as HTMLInputElement).value).toBe('rita')
  })

  test('each filter is a step of history: the back button brings the previous view back', async () => {
    const { api, user, router, location } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (2)' })
    await user.selectOptions(screen.getByLabelText('Last sign-in'), '365')
    await waitFor(() => expect(api.calls.at(-1)!.query.get('inactiveDays')).toBe('365'))
    await user.selectOptions(screen.getByLabelText('Email verified'), 'true')
    await waitFor(() => expect(location().search).toBe('?inactive=365&verified=true'))
    await act(() => router.navigate(-1))
    await waitFor(() => expect(location().search).toBe('?inactive=365'))
    expect((screen.getByLabelText('Email verified') as HTMLSelectElement).value).toBe('all')
    await waitFor(() => expect(api.calls.at(-1)!.query.toString()).toBe('page=1&limit=10&inactiveDays=365'))
    await act(() => router.navigate(-1))
    await waitFor(() => expect(location().search).toBe(''))
    expect((screen.getByLabelText('Last sign-in') as HTMLSelectElement).value).toBe('all')
  })
})
