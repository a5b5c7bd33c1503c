import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import { ADMIN_ONLY, PAGE_ACCESS, STAFF } from '~shared/permissions'
import { decideAccess } from '~web/app/guard'
import type { SessionView } from '~web/lib/session'
import { session } from '~web/lib/session'
import { installFakeApi, ok } from './support/fake-api'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const signedIn = (overrides = {}): SessionView => ({ status: 'ready', user: makeUser(overrides), authenticated: true })

describe('the guard decides in the spec order', () => {
  test('1. still loading: a spinner, before anything else', () => {
    expect(decideAccess({ session: { status: 'loading', user: null, authenticated: false }, access: ADMIN_ONLY, from: '/admin' })).toEqual({ kind: 'loading' })
  })

  test('2. signed out: to /login, remembering where the user was going', () => {
    const decision = decideAccess({ session: { status: 'ready', user: null, authenticated: false }, access: 'signed-in', from: '/profile?tab=x' })
    expect(decision).toEqual({ kind: 'redirect', to: '/login', state: { from: '/profile?tab=x' } })
  })

  test('3. e-mail not verified (before the role and status checks): to /verify-email', () => {
    const current = signedIn({ emailVerified: false, role: 'CLIENT', status: 'SUSPENDED', email: 'new@example.com' })
    expect(decideAccess({ session: current, access: ADMIN_ONLY, from: '/admin' })).toEqual({ kind: 'redirect', to: '/verify-email?email=new%40example.com' })
  })

  test('4. an admin-only page for a non-admin: to /unauthorized (before the status check)', () => {
    expect(decideAccess({ session: signedIn({ role: 'MODERATOR', status: 'SUSPENDED' }), access: ADMIN_ONLY, from: '/admin' })).toEqual({
      kind: 'redirect',
      to: '/unauthorized',
    })
  })

  test('5. a role not in the page list: to /unauthorized (before the status check)', () => {
    expect(decideAccess({ session: signedIn({ role: 'CLIENT', status: 'INACTIVE' }), access: STAFF, from: '/my-activity' })).toEqual({
      kind: 'redirect',
      to: '/unauthorized',
    })
  })

  test('6. not ACTIVE: to /account-status with the lowercased status and the e-mail', () => {
    expect(decideAccess({ session: signedIn({ status: 'SUSPENDED', email: 'sus@example.com' }), access: 'signed-in', from: '/dashboard' })).toEqual({
      kind: 'redirect',
      to: '/account-status?status=suspended&email=sus%40example.com',
    })
    expect(decideAccess({ session: signedIn({ status: 'INACTIVE', email: 'in@example.com' }), access: 'signed-in', from: '/dashboard' })).toEqual({
      kind: 'redirect',
      to: '/account-status?status=inactive&email=in%40example.com',
    })
  })

  test('7. otherwise: the page', () => {
    expect(decideAccess({ session: signedIn({ role: 'ADMIN' }), access: PAGE_ACCESS['/admin/users'], from: '/admin/users' })).toEqual({ kind: 'allow' })
    expect(decideAccess({ session: signedIn({ role: 'DEVELOPER' }), access: PAGE_ACCESS['/developer'], from: '/developer' })).toEqual({ kind: 'allow' })
  })

  test('a verified e-mail is only required where the route asks for it', () => {
    expect(decideAccess({ session: signedIn({ emailVerified: false }), access: 'signed-in', requireVerifiedEmail: false, from: '/dashboard' })).toEqual({ kind: 'allow' })
  })
})

describe('the guard on the real routes', () => {
  test('while the session loads, a spinner', async () => {
    installFakeApi().on('GET /auth/me', () => new Promise(() => {}))
    window.localStorage.setItem('accessToken', 'stored')
    void session.start()
    renderApp(null, { url: '/dashboard' })
    expect((await screen.findByRole('status')).textContent).toBe('Loading…')
  })

  test('signed out: /admin/users goes to the sign-in page, which brings the user back after signing in', async () => {
    const admin = makeUser({ role: 'ADMIN', email: 'admin@example.com' })
    installFakeApi().on('POST /auth/login', ok({ accessToken: 'a', refreshToken: 'r', csrfToken: 'c', user: admin }))
    const { user, location } = renderApp(null, { url: '/admin/users?search=ann' })
    await screen.findByRole('heading', { name: 'Sign in' })
    expect(location().pathname).toBe('/login')

    await user.type(screen.getByLabelText('Email'), 'admin@example.com')
    await user.type(screen.getByLabelText('Password'), 'Some-Pass-1!')
    await user.click(screen.getByRole('button', { name: 'Sign in' }))
    await waitFor(() => expect(location().pathname + location().search).toBe('/admin/users?search=ann'))
  })

  test('an unverified user goes to /verify-email', async () => {
    const { location } = renderApp(null, { url: '/dashboard', user: makeUser({ emailVerified: false, email: 'late@example.com' }) })
    await screen.findByRole('heading', { name: 'Verify Your Email' })
    expect(location().search).toBe('?email=late%40example.com')
  })

  test('a moderator on an admin page goes to /unauthorized', async () => {
    const { location } = renderApp(null, { url: '/admin', user: makeUser({ role: 'MODERATOR' }) })
    await screen.findByRole('heading', { name: 'Access Denied' })
    expect(location().pathname).toBe('/unauthorized')
  })

  test("an application's page is the Applications page's: a developer goes to /unauthorized", async () => {
    const { location } = renderApp(null, { url: '/admin/applications/app_wikiwikiwikiwikiwikiw', user: makeUser({ role: 'DEVELOPER' }) })
    await screen.findByRole('heading', { name: 'Access Denied' })
    expect(location().pathname).toBe('/unauthorized')
  })

  test('Access Denied keeps the top bar and the side menu for a signed-in user, and is bare for a visitor', async () => {
    const first = renderApp(null, { url: '/admin/users', user: makeUser({ role: 'MODERATOR', name: 'Mo Derator' }) })
    await screen.findByRole('heading', { name: 'Access Denied', level: 1 })
    expect(first.location().pathname).toBe('/unauthorized')
    expect(screen.getByRole('banner')).toBeTruthy()
    const menu = screen.getByRole('navigation', { name: 'Side menu' })
    expect(within(menu).getByRole('link', { name: 'Dashboard' })).toBeTruthy()
    expect(screen.getByRole('button', { name: /Mo Derator/ })).toBeTruthy()
    first.unmount()

    await session.signOut()
    renderApp(null, { url: '/unauthorized' })
    await screen.findByRole('heading', { name: 'Access Denied', level: 1 })
    expect(screen.queryByRole('navigation', { name: 'Side menu' })).toBeNull()
    expect(screen.getByRole('combobox', { name: 'Language' })).toBeTruthy()
  })

  test('a client on a staff page goes to /unauthorized', async () => {
    const { location } = renderApp(null, { url: '/my-activity', user: makeUser({ role: 'CLIENT' }) })
    await screen.findByRole('heading', { name: 'Access Denied' })
    expect(location().pathname).toBe('/unauthorized')
  })

  test('a suspended user goes to /account-status', async () => {
    const { location } = renderApp(null, { url: '/dashboard', user: makeUser({ status: 'SUSPENDED', email: 'sus@example.com' }) })
    await screen.findByRole('heading', { name: 'Account Suspended' })
    expect(location().search).toBe('?status=suspended&email=sus%40example.com')
  })

  test('an allowed user sees the page', async () => {
    renderApp(null, { url: '/developer', user: makeUser({ role: 'DEVELOPER' }) })
    expect(await screen.findByRole('heading', { name: 'Developer Dashboard', level: 1 })).toBeTruthy()
  })

  test.each(['/login', '/register'])('signed in, %s goes to /dashboard like the sign-in page does', async (url) => {
    const { location } = renderApp(null, { url, user: makeUser({ name: 'Ada Lovelace' }) })
    await screen.findByRole('heading', { name: 'Welcome back, Ada Lovelace!' })
    expect(location().pathname).toBe('/dashboard')
  })

  test("a suspended account's stale session still reaches /register", async () => {
    const { location } = renderApp(null, { url: '/register', user: makeUser({ status: 'SUSPENDED' }) })
    await screen.findByRole('heading', { name: 'Create an account' })
    expect(location().pathname).toBe('/register')
  })

  test('the root and unknown paths go to /dashboard', async () => {
    const first = renderApp(null, { url: '/', user: makeUser({ name: 'Ada Lovelace' }) })
    await screen.findByRole('heading', { name: 'Welcome back, Ada Lovelace!' })
    expect(first.location().pathname).toBe('/dashboard')
    first.unmount()

    const second = renderApp(null, { url: '/no/such/page', user: makeUser({ name: 'Ada Lovelace' }) })
    await screen.findByRole('heading', { name: 'Welcome back, Ada Lovelace!' })
    expect(second.location().pathname).toBe('/dashboard')
  })
})
