import { act, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import { ROLES, type Role } from '~shared/constants'
import { PAGE_ACCESS, roleMayAccess } from '~shared/permissions'
import { installFakeApi, ok } from './support/fake-api'
import { toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

async function renderSignedIn(role: Role, url = '/dashboard') {
  const api = installFakeApi()
  const me = makeUser({ role, name: 'Sam Sample', email: 'sam@example.com' })
  const rendered = renderApp(null, { url, user: me })
  await screen.findByRole('heading', { name: 'Welcome back, Sam Sample!' }, { timeout: 5000 })
  return { api, me, ...rendered }
}

const sideMenu = () => screen.getAllByRole('navigation', { name: 'Side menu' })[0]!

describe('side menu', () => {
  test.each(ROLES)('%s sees exactly the pages the permission table allows, in the spec sections', async (role) => {
    await renderSignedIn(role)
    const links = within(sideMenu())
      .getAllByRole('link')
      .map((link) => link.getAttribute('href'))
    const allowed = Object.entries(PAGE_ACCESS)
      .filter(([page, access]) => page !== '/debug' && roleMayAccess(access, role))
      .map(([page]) => page)
    expect(links.sort()).toEqual(allowed.sort())
  })

  test('sections and labels, for an admin', async () => {
    await renderSignedIn('ADMIN')
    const headings = within(sideMenu())
      .getAllByRole('heading')
      .map((heading) => heading.textContent)
    expect(headings).toEqual(['Main', 'Administration'])
    expect(
      within(sideMenu())
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['Dashboard', 'Profile', 'My Activity', 'Settings', 'Admin Dashboard', 'User Management', 'Activity Logs', 'Applications', 'Sign-in methods', 'Webhooks'])
  })

  test('developer and moderator sections', async () => {
    const first = await renderSignedIn('DEVELOPER')
    expect(
      within(sideMenu())
        .getAllByRole('heading')
        .map((heading) => heading.textContent),
    ).toEqual(['Main', 'Administration', 'Developer'])
    first.unmount()
    await renderSignedIn('MODERATOR')
    expect(within(sideMenu()).getByRole('link', { name: 'Moderator Dashboard' }).getAttribute('href')).toBe('/moderator')
  })

  test('on small screens, a sheet titled Menu with the description Quick navigation', async () => {
    const { user } = await renderSignedIn('CLIENT')
    await user.click(screen.getByRole('button', { name: 'Open menu' }))
    const sheet = await screen.findByRole('dialog', { name: 'Menu' })
    expect(document.getElementById(sheet.getAttribute('aria-describedby')!)!.textContent).toBe('Quick navigation')
    await user.click(within(sheet).getByRole('link', { name: 'Profile' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
  })
})

describe('top bar', () => {
  test('closing the menu sheet with Escape gives focus back to the menu button', async () => {
    const { user } = await renderSignedIn('CLIENT')
    const opener = screen.getByRole('button', { name: 'Open menu' })
    await user.click(opener)
    await screen.findByRole('dialog', { name: 'Menu' })
    await user.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    await waitFor(() => expect(document.activeElement).toBe(opener))
  })

  test('brand link, role badge and the avatar menu', async () => {
    const { user, location } = await renderSignedIn('MODERATOR')
    const home = screen.getByRole('link', { name: 'Accounts home' })
    expect(home.getAttribute('href')).toBe('/dashboard')
    // The product's mark and name (APP_NAME, "Accounts" by default).
    expect(home.textContent).toBe('Accounts')
    expect(home.querySelector('svg[aria-hidden]')).not.toBeNull()
    expect(within(screen.getByRole('banner')).getByText('Moderator')).toBeTruthy()
    await user.click(screen.getByRole('button', { name: 'Account menu for Sam Sample, SS' }))
    const menu = await screen.findByRole('menu')
    expect(menu.textContent).toContain('Sam Sample')
    expect(menu.textContent).toContain('sam@example.com')
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(['Profile', 'Settings', 'Debug', 'Log out'])
    await user.click(within(menu).getByRole('menuitem', { name: 'Settings' }))
    await waitFor(() => expect(location().pathname).toBe('/settings'))
  })

  test('log out ends the session even when the server call fails', async () => {
    const { api, user, location } = await renderSignedIn('CLIENT')
    api.on('POST /auth/logout', { status: 500 })
    await user.click(screen.getByRole('button', { name: 'Account menu for Sam Sample, SS' }))
    await user.click(await screen.findByRole('menuitem', { name: 'Log out' }))
    await waitFor(() => expect(location().pathname).toBe('/login'))
    expect(api.callsTo('POST /auth/logout')).toHaveLength(1)
    expect(['accessToken', 'refreshToken', 'user', 'csrfToken'].map((key) => window.localStorage.getItem(key))).toEqual([null, null, null, null])
    await waitFor(() => expect(toastTexts()).toContain('Logged out successfully'))
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeTruthy()
  })

  test('signing out in another tab signs this one out too', async () => {
    const { location } = await renderSignedIn('CLIENT')
    act(() => {
      window.localStorage.removeItem('accessToken')
      window.dispatchEvent(new StorageEvent('storage', { key: 'accessToken', oldValue: 'x', newValue: null }))
    })
    await waitFor(() => expect(location().pathname).toBe('/login'))
  })

  test('an ended session (refused refresh) goes to the sign-in page and back after signing in', async () => {
    const api = installFakeApi()
      .on('GET /users/profile', { status: 401, body: { success: false, message: 'Invalid or expired access token', code: 'TOKEN_INVALID' } })
      .on('POST /auth/refresh-token', { status: 401, body: { success: false, message: 'Invalid or expired refresh token', code: 'REFRESH_INVALID' } })
    const { location } = renderApp(null, { url: '/profile', user: makeUser({ name: 'Sam Sample' }) })
    await waitFor(() => expect(location().pathname).toBe('/login'))
    expect(location().state).toEqual({ from: '/profile', sessionEnded: true })
    expect(api.callsTo('POST /auth/refresh-token')).toHaveLength(1)
    expect(window.localStorage.getItem('accessToken')).toBeNull()
    api.on('GET /users/profile', ok(makeUser()))
  })
})
