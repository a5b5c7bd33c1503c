import { screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, test } from 'vitest'
import type { ActivityEntry } from '~shared/schemas/lists'
import type { User } from '~shared/schemas/user'
import { ActivityLogsPage } from '~web/features/activity-logs/components/activity-logs-page'
import { UsersPage } from '~web/features/admin-users/components/users-page'
import { AcceptInvitePage } from '~web/features/auth/components/accept-invite-page'
import { MyActivityPage } from '~web/features/my-activity/components/my-activity-page'
import { setLanguage } from '~web/lib/i18n'
import { session } from '~web/lib/session'
import { type FakeApi, fail, installFakeApi, ok } from './support/fake-api'
import { fieldError, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const admin = makeUser({ name: 'Ada Admin', email: 'ada@example.com', role: 'ADMIN' })
const client = makeUser({ name: 'Cleo Client', email: 'cleo@example.com' })
const invitee = makeUser({ name: 'Ivan Invited', email: 'ivan@example.com', emailVerified: false })
const everyone = [admin, client, invitee]

afterEach(async () => {
  await setLanguage('en')
})

function renderUsers(api: FakeApi = installFakeApi()) {
  api.on('GET /admin/users', ok({ users: everyone, pagination: { page: 1, limit: 10, total: everyone.length, pages: 1 } }))
  return { api, ...renderApp(<UsersPage />, { url: '/admin/users', user: admin }) }
}

async function choose(user: ReturnType<typeof renderApp>['user'], name: string, item: string) {
  await user.click(screen.getByRole('button', { name: `Actions for ${name}` }))
  const menu = await screen.findByRole('menu')
  await user.click(within(menu).getByRole('menuitem', { name: new RegExp(item) }))
}

describe('invite user', () => {
  test('checks the fields with the spec rules, sends the invitation and says so', async () => {
    const { api, user } = renderUsers()
    api.on('POST /admin/users', (request) => ({
      status: 201,
      body: { success: true, message: 'Invitation sent', data: makeUser({ ...(request.body as Partial<User>), emailVerified: false }) },
    }))
    await screen.findByRole('heading', { name: 'User Management (3)' })
    await user.click(screen.getByRole('button', { name: 'Invite user' }))
    const dialog = await screen.findByRole('dialog', { name: 'Invite User' })
    await user.click(within(dialog).getByRole('button', { name: 'Send invitation' }))
    await waitFor(() => expect(fieldError('Name')).toBe('Name must be at least 2 characters'))
    expect(fieldError('Email')).toBe('Invalid email address')
    expect(api.callsTo('POST /admin/users')).toHaveLength(0)
    await user.type(within(dialog).getByLabelText('Name'), 'Grace Hopper')
    await user.type(within(dialog).getByLabelText('Email'), 'Grace@Example.com')
    await user.selectOptions(within(dialog).getByLabelText('Role'), 'DEVELOPER')
    await user.click(within(dialog).getByRole('button', { name: 'Send invitation' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(api.callsTo('POST /admin/users')[0]!.body).toEqual({ name: 'Grace Hopper', email: 'grace@example.com', role: 'DEVELOPER', phone: null })
    await waitFor(() => expect(toastTexts()).toEqual(['Invitation sent to grace@example.com']))
  })

  test('an address that has an account: the message under the e-mail field, the dialog stays', async () => {
    const { api, user } = renderUsers()
    api.on('POST /admin/users', fail(409, 'This email address is already used by another account', { code: 'EMAIL_TAKEN' }))
    await screen.findByRole('heading', { name: 'User Management (3)' })
    await user.click(screen.getByRole('button', { name: 'Invite user' }))
    const dialog = await screen.findByRole('dialog', { name: 'Invite User' })
    await user.type(within(dialog).getByLabelText('Name'), 'Cleo Again')
    await user.type(within(dialog).getByLabelText('Email'), 'cleo@example.com')
    await user.click(within(dialog).getByRole('button', { name: 'Send invitation' }))
    await waitFor(() => expect(fieldError('Email')).toBe('This email address is already used by another account'))
    expect(screen.getByRole('dialog', { name: 'Invite User' })).toBeTruthy()
  })
})

describe("the admin's actions on a user's security", () => {
  test('"Resend invitation" is offered only to someone who has not joined', async () => {
    const { user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (3)' })
    await user.click(screen.getByRole('button', { name: 'Actions for Cleo Client' }))
    expect(within(await screen.findByRole('menu')).queryByRole('menuitem', { name: /Resend invitation/ })).toBeNull()
    await user.keyboard('{Escape}')
    await user.click(screen.getByRole('button', { name: 'Actions for Ivan Invited' }))
    expect(within(await screen.findByRole('menu')).getByRole('menuitem', { name: /Resend invitation/ })).toBeTruthy()
  })

  test.each([
    ['Sign out everywhere', 'Sign Out Everywhere', 'DELETE /admin/users/:id/sessions', 'Cleo Client was signed out everywhere'],
    ['Send password reset link', 'Send Password Reset Link', 'POST /admin/users/:id/password-reset', 'A password reset link was sent to Cleo Client'],
    ['Reset two-factor and passkeys', 'Reset Two-Factor and Passkeys', 'DELETE /admin/users/:id/mfa', 'Two-factor authentication and passkeys of Cleo Client were reset'],
  ] as const)('%s asks first, then calls the server and says it is done', async (item, title, route, done) => {
    const { api, user } = renderUsers()
    api.on(route, ok(undefined, 'Done'))
    await screen.findByRole('heading', { name: 'User Management (3)' })
    await choose(user, 'Cleo Client', item)
    const dialog = await screen.findByRole('dialog', { name: title })
    expect(dialog.textContent).toContain('Cleo Client (cleo@example.com)')
    expect(api.callsTo(route)).toHaveLength(0)
    await user.click(
      within(dialog)
        .getAllByRole('button')
        .find((button) => button.textContent !== 'Cancel' && button.textContent !== '')!,
    )
    await waitFor(() => expect(api.callsTo(route)).toHaveLength(1))
    expect(api.callsTo(route)[0]!.path).toBe(`/admin/users/${client.id}/${route.split('/:id/')[1]}`)
    await waitFor(() => expect(toastTexts()).toEqual([done]))
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Actions for Cleo Client' })))
  })

  test('cancelled: nothing is sent', async () => {
    const { api, user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (3)' })
    await choose(user, 'Ivan Invited', 'Resend invitation')
    const dialog = await screen.findByRole('dialog', { name: 'Resend Invitation' })
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(api.callsTo('POST /admin/users/:id/invitation')).toHaveLength(0)
  })

  test("a refusal is told in a toast with the server's words", async () => {
    const { api, user } = renderUsers()
    api.on('POST /admin/users/:id/invitation', fail(409, 'This user has already joined: there is no invitation to send', { code: 'INVITATION_ACCEPTED' }))
    await screen.findByRole('heading', { name: 'User Management (3)' })
    await choose(user, 'Ivan Invited', 'Resend invitation')
    await user.click(within(await screen.findByRole('dialog', { name: 'Resend Invitation' })).getByRole('button', { name: 'Resend invitation' }))
    await waitFor(() => expect(toastTexts()).toEqual(['This user has already joined: there is no invitation to send']))
  })

  test('the edit dialog offers them too, each behind the same confirmation', async () => {
    const { api, user } = renderUsers()
    api.on('POST /admin/users/:id/password-reset', ok(undefined, 'Password reset link sent'))
    await screen.findByRole('heading', { name: 'User Management (3)' })
    await choose(user, 'Cleo Client', 'Edit')
    const edit = await screen.findByRole('dialog', { name: 'Edit User' })
    const security = within(edit).getByRole('region', { name: 'Security' })
    expect(
      within(security)
        .getAllByRole('button')
        .map((button) => button.textContent),
    ).toEqual(['Send password reset link', 'Sign out everywhere', 'Reset two-factor and passkeys'])
    await user.click(within(security).getByRole('button', { name: 'Send password reset link' }))
    const confirm = await screen.findByRole('dialog', { name: 'Send Password Reset Link' })
    await user.click(within(confirm).getByRole('button', { name: 'Send link' }))
    await waitFor(() => expect(api.callsTo('POST /admin/users/:id/password-reset')).toHaveLength(1))
  })

  test('the two-factor reset from the edit dialog says what it does, asks, then calls the server', async () => {
    const { api, user } = renderUsers()
    api.on('DELETE /admin/users/:id/mfa', ok(undefined, 'Two-factor authentication and passkeys reset'))
    await screen.findByRole('heading', { name: 'User Management (3)' })
    await choose(user, 'Cleo Client', 'Edit')
    const edit = await screen.findByRole('dialog', { name: 'Edit User' })
    await user.click(within(within(edit).getByRole('region', { name: 'Security' })).getByRole('button', { name: 'Reset two-factor and passkeys' }))
    const confirm = await screen.findByRole('dialog', { name: 'Reset Two-Factor and Passkeys' })
    expect(confirm.textContent).toContain('remove all their passkeys')
    expect(api.callsTo('DELETE /admin/users/:id/mfa')).toHaveLength(0)
    await user.click(within(confirm).getByRole('button', { name: 'Reset two-factor' }))
    await waitFor(() => expect(api.callsTo('DELETE /admin/users/:id/mfa')).toHaveLength(1))
    expect(api.callsTo('DELETE /admin/users/:id/mfa')[0]!.path).toBe(`/admin/users/${client.id}/mfa`)
    await waitFor(() => expect(toastTexts()).toEqual(['Two-factor authentication and passkeys of Cleo Client were reset']))
  })

  test("the two-factor reset is unavailable on the admin's own account", async () => {
    const { user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (3)' })
    await user.click(screen.getByRole('button', { name: 'Actions for Ada Admin' }))
    const item = within(await screen.findByRole('menu')).getByRole('menuitem', { name: /Reset two-factor and passkeys/ })
    expect(item.getAttribute('aria-disabled')).toBe('true')
  })
})

describe('accepting an invitation', () => {
  const fill = async (user: ReturnType<typeof renderApp>['user'], password: string, confirm = password) => {
    await user.type(screen.getByLabelText('Password'), password)
    await user.type(screen.getByLabelText('Confirm Password'), confirm)
    await user.click(screen.getByRole('button', { name: 'Set password and sign in' }))
  }

  test('without a token: the link is invalid, and nothing names an account', () => {
    renderApp(<AcceptInvitePage />, { url: '/accept-invite' })
    expect(screen.getByRole('heading', { name: 'Invalid Invitation Link' })).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Back to Login' }).getAttribute('href')).toBe('/login')
  })

  test("checks the password with the spec's rules and messages, with show/hide toggles", async () => {
    const api = installFakeApi()
    const { user } = renderApp(<AcceptInvitePage />, { url: '/accept-invite?token=tok' })
    expect(screen.getAllByRole('button', { name: /show password/i })).toHaveLength(2)
    await fill(user, 'short')
    await waitFor(() => expect(fieldError('Password')).toBe('Password must be at least 8 characters'))
    await user.clear(screen.getByLabelText('Password'))
    await user.type(screen.getByLabelText('Password'), 'Blue-Otter-93!')
    await user.clear(screen.getByLabelText('Confirm Password'))
    await user.type(screen.getByLabelText('Confirm Password'), 'Blue-Otter-94!')
    await waitFor(() => expect(fieldError('Confirm Password')).toBe("Passwords don't match"))
    expect(api.calls).toHaveLength(0)
  })

  test('sets the password, signs in, and lands on the dashboard', async () => {
    const joined = makeUser({ name: 'Grace Hopper', role: 'DEVELOPER' })
    const api = installFakeApi().on(
      'POST /auth/accept-invite/:token',
      ok({ accessToken: 'access-new', refreshToken: 'refresh-new', csrfToken: 'csrf-new', user: joined }, 'Welcome! Your account is ready.'),
    )
    const { user, location } = renderApp(<AcceptInvitePage />, { url: '/accept-invite?token=tok-123' })
    await fill(user, 'Blue-Otter-93!')
    await waitFor(() => expect(location().pathname).toBe('/dashboard'))
    expect(api.calls[0]).toMatchObject({ path: '/auth/accept-invite/tok-123', body: { password: 'Blue-Otter-93!', confirmPassword: 'Blue-Otter-93!' } })
    expect(session.get().user?.id).toBe(joined.id)
    await waitFor(() => expect(toastTexts()).toEqual(['Welcome! Your account is ready.']))
  })

  test('a used or expired link says so, without a toast and without the form', async () => {
    installFakeApi().on('POST /auth/accept-invite/:token', fail(400, 'Invalid or expired invitation link', { code: 'INVALID_TOKEN' }))
    const { user } = renderApp(<AcceptInvitePage />, { url: '/accept-invite?token=old' })
    await fill(user, 'Blue-Otter-93!')
    expect(await screen.findByRole('heading', { name: 'Invalid Invitation Link' })).toBeTruthy()
    expect(screen.queryByLabelText('Password')).toBeNull()
    expect(toastTexts()).toEqual([])
  })
})

describe("an admin's entries say who acted and what changed", () => {
  const edited: ActivityEntry = {
    id: '1',
    activity: 'Updated user Cleo Client (cleo@example.com)',
    details: 'role: CLIENT → MODERATOR; status: ACTIVE → SUSPENDED; phone changed',
    ipAddress: '203.0.113.9',
    createdAt: new Date().toISOString(),
    actor: { type: 'user', id: admin.id, name: 'Ada Admin' },
    changes: [
      { field: 'role', from: 'CLIENT', to: 'MODERATOR' },
      { field: 'status', from: 'ACTIVE', to: 'SUSPENDED' },
      { field: 'phone', from: null, to: null },
    ],
    user: { id: client.id, name: 'Cleo Client', email: 'cleo@example.com', role: 'MODERATOR', profilePicture: null },
  }

  test('in the logs: "by Ada Admin" and each change, readably', async () => {
    installFakeApi().on('GET /admin/activity-logs', ok({ activities: [edited], pagination: { page: 1, limit: 20, total: 1, pages: 1 } }))
    renderApp(<ActivityLogsPage />, { url: '/admin/activity-logs', user: makeUser({ role: 'MODERATOR' }) })
    const item = within(await screen.findByRole('list', { name: 'Activity entries' })).getAllByRole('listitem')[0]!
    expect(item.textContent).toContain('by Ada Admin')
    // Shown one per line; a screen reader hears "Changes: Role: Client → to Moderator; …".
    const changes = item.querySelector('[data-changes]')!
    expect([...changes.children].slice(1).map((line) => line.textContent)).toEqual(['Role: Client → to Moderator; ', 'Status: Active → to Suspended; ', 'Phone: changed'])
    expect(changes.textContent).toBe('Changes: Role: Client → to Moderator; Status: Active → to Suspended; Phone: changed')
  })

  test("in the target's My Activity, in French", async () => {
    await setLanguage('fr')
    installFakeApi().on('GET /activity', ok({ activities: [{ ...edited, user: undefined }], pagination: { page: 1, limit: 20, total: 1, pages: 1 } }))
    renderApp(<MyActivityPage />, { url: '/my-activity', user: makeUser({ role: 'MODERATOR' }) })
    const item = within(await screen.findByRole('list', { name: /activit/i })).getAllByRole('listitem')[0]!
    expect(item.textContent).toContain('par Ada Admin')
    expect(item.querySelector('[data-changes]')!.textContent).toContain('Modifications: Rôle: Client → devient Modérateur; ')
    expect(item.textContent).toContain('Utilisateur Cleo Client (cleo@example.com) mis à jour')
  })

  test("in the acting admin's own log too, the same words", async () => {
    installFakeApi().on('GET /activity', ok({ activities: [{ ...edited, user: undefined }], pagination: { page: 1, limit: 20, total: 1, pages: 1 } }))
    renderApp(<MyActivityPage />, { url: '/my-activity', user: admin })
    const item = within(await screen.findByRole('list', { name: 'Activity entries' })).getAllByRole('listitem')[0]!
    expect(item.textContent).toContain('by Ada Admin')
  })
})
