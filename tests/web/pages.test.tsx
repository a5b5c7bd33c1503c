import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test, vi } from 'vitest'
import { AccountStatusPage } from '~web/features/access/components/account-status-page'
import { UnauthorizedPage } from '~web/features/access/components/unauthorized-page'
import { DashboardPage } from '~web/features/dashboard/components/dashboard-page'
import { DebugPage } from '~web/features/debug/components/debug-page'
import { ProjectsPage } from '~web/features/developer/components/projects-page'
import { CommentsPage } from '~web/features/moderator/components/comments-page'
import { installFakeApi } from './support/fake-api'
import { toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

describe('dashboard', () => {
  test('welcome line, profile card, role card and account status with profile completion', () => {
    const user = makeUser({ name: 'Ann Smith', role: 'DEVELOPER', phone: '555-0100', emailVerified: true })
    renderApp(<DashboardPage />, { url: '/dashboard', user })
    expect(screen.getByRole('heading', { name: 'Welcome back, Ann Smith!' })).toBeTruthy()
    expect(screen.getByText('555-0100')).toBeTruthy()
    expect(screen.getByText('Email verified')).toBeTruthy()
    expect(screen.getByText('Verified')).toBeTruthy()
    expect(screen.getByText('Access development projects')).toBeTruthy()
    expect(screen.getByRole('progressbar', { name: 'Profile completion' }).getAttribute('aria-valuenow')).toBe('75')
    // A phone but no picture: the hint asks only for the picture.
    expect(screen.getByText('Add a profile picture to complete your profile.')).toBeTruthy()
    expect(screen.queryByText(/Add a phone number/)).toBeNull()
    expect(screen.getByText('Joined').nextElementSibling!.textContent).toBe('Jan 15, 2026')
  })

  test('no phone is not shown; an unverified e-mail is Pending', () => {
    renderApp(<DashboardPage />, { url: '/dashboard', user: makeUser({ phone: null, emailVerified: false }) })
    expect(screen.queryByText('Phone')).toBeNull()
    expect(screen.getByText('Pending')).toBeTruthy()
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('50')
    expect(screen.getByText('Add a phone number and a profile picture to complete your profile.')).toBeTruthy()
  })
})

describe('access pages', () => {
  test('Access Denied links to the dashboard and the profile', () => {
    renderApp(<UnauthorizedPage />, { url: '/unauthorized' })
    expect(screen.getByRole('heading', { name: 'Access Denied' })).toBeTruthy()
    expect(screen.getByText("You don't have permission to access this page.")).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Go to Dashboard' }).getAttribute('href')).toBe('/dashboard')
    expect(screen.getByRole('link', { name: 'Go to Profile' }).getAttribute('href')).toBe('/profile')
  })

  test.each([
    ['suspended', 'Account Suspended', 'Suspended'],
    ['inactive', 'Account Inactive', 'Inactive'],
    ['SUSPENDED', 'Account Suspended', 'Suspended'],
    ['banana', 'Account Status Unknown', 'Unknown'],
  ])('account status %s: title, badge, explanation, support, links', (status, title, badge) => {
    renderApp(<AccountStatusPage />, { url: `/account-status?status=${status}&email=ann%40example.com` })
    expect(screen.getByRole('heading', { name: title })).toBeTruthy()
    expect(screen.getByText(badge)).toBeTruthy()
    expect(screen.getByText('ann@example.com')).toBeTruthy()
    expect(screen.getByRole('heading', { name: 'Contact support' })).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Back to Login' }).getAttribute('href')).toBe('/login')
    expect(screen.getByRole('link', { name: 'Go to Home' }).getAttribute('href')).toBe('/')
  })
})

describe('auth debug', () => {
  test('shows the state and never a token; only an ADMIN is allowed on admin', async () => {
    const user = makeUser({ role: 'MODERATOR', email: 'mod@example.com' })
    const { user: actor } = renderApp(<DebugPage />, { url: '/debug', user })
    const page = document.body.textContent ?? ''
    expect(page).toContain(user.id)
    expect(page).toContain('mod@example.com')
    expect(page).not.toContain(`access-${user.id}`)
    expect(page).not.toContain(`refresh-${user.id}`)
    expect(page).not.toContain('csrf-token')
    expect(screen.getByText('Dashboard access').nextElementSibling!.textContent).toBe('Allowed')
    expect(screen.getByText('Admin access').nextElementSibling!.textContent).toBe('Denied')

    const info = vi.spyOn(console, 'info').mockImplementation(() => {})
    await actor.click(screen.getByRole('button', { name: 'Log auth state' }))
    const logged = JSON.stringify(info.mock.calls)
    expect(logged).toContain('mod@example.com')
    expect(logged).not.toContain(`access-${user.id}`)
    await waitFor(() => expect(toastTexts()).toEqual(['Auth state written to the browser console']))
  })

  test('signed out: not authenticated, nothing allowed', () => {
    renderApp(<DebugPage />, { url: '/debug' })
    expect(screen.getByText('Authenticated').nextElementSibling!.textContent).toBe('No')
    expect(screen.getByText('Dashboard access').nextElementSibling!.textContent).toBe('Denied')
  })

  test('an admin is allowed on admin; the page opens on the real routes signed out too', async () => {
    installFakeApi()
    const first = renderApp(<DebugPage />, { url: '/debug', user: makeUser({ role: 'ADMIN' }) })
    expect(screen.getByText('Admin access').nextElementSibling!.textContent).toBe('Allowed')
    first.unmount()
    window.localStorage.clear()
    const { session } = await import('~web/lib/session')
    session.syncFromStorage()
    renderApp(null, { url: '/debug' })
    expect(await screen.findByRole('heading', { name: 'Auth Debug' })).toBeTruthy()
  })
})

describe('developer projects (sample data)', () => {
  test('search, status filter and a Change Status menu, with no server call', async () => {
    const api = installFakeApi()
    const { user } = renderApp(<ProjectsPage />, { url: '/developer', user: makeUser({ role: 'DEVELOPER' }) })
    expect(screen.getAllByRole('row')).toHaveLength(6)
    await user.type(screen.getByLabelText('Search projects'), 'billing')
    expect(screen.getAllByRole('row')).toHaveLength(2)
    await user.clear(screen.getByLabelText('Search projects'))
    await user.selectOptions(screen.getByLabelText('Status'), 'completed')
    expect(screen.getAllByRole('row')).toHaveLength(2)
    await user.selectOptions(screen.getByLabelText('Status'), 'all')

    await user.click(screen.getByRole('button', { name: 'Change status of Billing API v2' }))
    await user.click(await screen.findByRole('menuitemradio', { name: 'Completed' }))
    const row = screen.getByRole('cell', { name: 'Billing API v2' }).closest('tr')!
    expect(within(row).getByText('Completed')).toBeTruthy()
    expect(api.calls).toHaveLength(0)
  })
})

describe('moderator comments (sample data)', () => {
  test('search over client and text, status filter, Change Status menu', async () => {
    const api = installFakeApi()
    const { user } = renderApp(<CommentsPage />, { url: '/moderator', user: makeUser({ role: 'MODERATOR' }) })
    await user.type(screen.getByLabelText('Search comments'), 'globex')
    expect(screen.getAllByRole('row')).toHaveLength(2)
    await user.clear(screen.getByLabelText('Search comments'))
    await user.type(screen.getByLabelText('Search comments'), 'invoices')
    expect(screen.getAllByRole('row')).toHaveLength(2)
    await user.clear(screen.getByLabelText('Search comments'))
    await user.selectOptions(screen.getByLabelText('Status'), 'pending')
    expect(screen.getAllByRole('row')).toHaveLength(3)

    await user.click(screen.getByRole('button', { name: 'Change status of the comment by Globex' }))
    await user.click(await screen.findByRole('menuitemradio', { name: 'Rejected' }))
    expect(screen.getAllByRole('row')).toHaveLength(2)
    expect(api.calls).toHaveLength(0)
  })
})
