import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import type { User } from '~shared/schemas/user'
import { UsersPage } from '~web/features/admin-users/components/users-page'
import { changedFields } from '~web/features/admin-users/user-rules'
import { type FakeApi, fail, installFakeApi, ok } from './support/fake-api'
import { fieldError, settle, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const admin = makeUser({ name: 'Ada Admin', email: 'ada@example.com', role: 'ADMIN' })
const otherAdmin = makeUser({ name: 'Otto Admin', role: 'ADMIN' })
const client = makeUser({ name: 'Cleo Client', email: 'cleo@example.com', role: 'CLIENT', status: 'ACTIVE', phone: null })
const retired = makeUser({ name: 'Ivy Inactive', email: 'ivy@example.com', role: 'DEVELOPER', status: 'INACTIVE', emailVerified: false })
const everyone = [admin, otherAdmin, client, retired]

function renderUsers(users: User[] = everyone, api: FakeApi = installFakeApi()) {
  api.on('GET /admin/users', ok({ users, pagination: { page: 1, limit: 10, total: users.length, pages: 1 } }))
  return { api, ...renderApp(<UsersPage />, { url: '/admin/users', user: admin }) }
}

const row = (name: string) => screen.getByRole('cell', { name: new RegExp(name) }).closest('tr') as HTMLElement

async function openActions(user: ReturnType<typeof renderApp>['user'], name: string) {
  await user.click(screen.getByRole('button', { name: `Actions for ${name}` }))
  return screen.findByRole('menu')
}

describe('user management', () => {
  test('the title counts the users; the table has the spec columns', async () => {
    const { api } = renderUsers()
    expect(await screen.findByRole('heading', { name: 'User Management (4)' })).toBeTruthy()
    const headers = screen.getAllByRole('columnheader').map((cell) => cell.textContent)
    expect(headers).toEqual(['User', 'Role', 'Status', 'Email Verified', 'Created', 'Last sign-in', 'Actions'])
    expect(within(row('Ivy Inactive')).getByText('Pending')).toBeTruthy()
    expect(api.calls[0]!.query.toString()).toBe('page=1&limit=10')
  })

  test('search waits 500 ms; search and filters are sent', async () => {
    const { api, user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (4)' })
    await user.type(screen.getByLabelText('Search users'), 'cleo')
    await settle(200)
    expect(api.calls.filter((call) => call.query.has('search'))).toHaveLength(0)
    await waitFor(() => expect(api.calls.at(-1)!.query.get('search')).toBe('cleo'), { timeout: 1500 })
    await user.selectOptions(screen.getByLabelText('Role'), 'DEVELOPER')
    await user.selectOptions(screen.getByLabelText('Status'), 'INACTIVE')
    await waitFor(() => expect(api.calls.at(-1)!.query.toString()).toBe('page=1&limit=10&search=cleo&role=DEVELOPER&status=INACTIVE'))
  })

  test('no users: "No users found"', async () => {
    renderUsers([])
    expect(await screen.findByText('No users found')).toBeTruthy()
  })
})

describe('edit user', () => {
  test('sends only the changed fields', async () => {
    const { api, user } = renderUsers()
    api.on('PUT /admin/users/:id', (request) => ok({ ...client, ...(request.body as object) }))
    await screen.findByRole('heading', { name: 'User Management (4)' })
    const menu = await openActions(user, 'Cleo Client')
    await user.click(within(menu).getByRole('menuitem', { name: 'Edit' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit User' })
    expect((within(dialog).getByLabelText('Name') as HTMLInputElement).value).toBe('Cleo Client')
    await user.selectOptions(within(dialog).getByLabelText('Status'), 'SUSPENDED')
    await user.selectOptions(within(dialog).getByLabelText('Role'), 'MODERATOR')
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }))
    await waitFor(() => expect(toastTexts()).toEqual(['User updated successfully']))
    const put = api.callsTo('PUT /admin/users/:id')
    expect(put).toHaveLength(1)
    expect(put[0]!.path).toBe(`/admin/users/${client.id}`)
    expect(put[0]!.body).toEqual({ role: 'MODERATOR', status: 'SUSPENDED' })
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
  })

  test('closes without a call when nothing changed', async () => {
    const { api, user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (4)' })
    await user.click(within(await openActions(user, 'Cleo Client')).getByRole('menuitem', { name: 'Edit' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit User' })
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(api.callsTo('PUT /admin/users/:id')).toHaveLength(0)
  })

  test('the spec messages under name and e-mail; a taken e-mail under the e-mail', async () => {
    const { api, user } = renderUsers()
    api.on('PUT /admin/users/:id', fail(409, 'This email address is already used by another account', { code: 'EMAIL_TAKEN' }))
    await screen.findByRole('heading', { name: 'User Management (4)' })
    await user.click(within(await openActions(user, 'Cleo Client')).getByRole('menuitem', { name: 'Edit' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit User' })
    await user.clear(within(dialog).getByLabelText('Name'))
    await user.type(within(dialog).getByLabelText('Name'), 'C')
    await user.clear(within(dialog).getByLabelText('Email'))
    await user.type(within(dialog).getByLabelText('Email'), 'nope')
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }))
    await waitFor(() => expect(fieldError('Name')).toBe('Name must be at least 2 characters'))
    expect(fieldError('Email')).toBe('Invalid email address')
    expect(api.callsTo('PUT /admin/users/:id')).toHaveLength(0)

    await user.type(within(dialog).getByLabelText('Name'), 'leo Client')
    await user.clear(within(dialog).getByLabelText('Email'))
    await user.type(within(dialog).getByLabelText('Email'), 'taken@example.com')
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }))
    await waitFor(() => expect(fieldError('Email')).toBe('This email address is already used by another account'))
    expect(api.callsTo('PUT /admin/users/:id')[0]!.body).toEqual({ email: 'taken@example.com' })
  })

  test('changed fields: only what differs, e-mail compared as sent', () => {
    const original = makeUser({ name: 'Ann', email: 'ann@example.com', phone: null, role: 'CLIENT', status: 'ACTIVE' })
    expect(changedFields(original, { name: 'Ann', email: 'ann@example.com', phone: null, role: 'CLIENT', status: 'ACTIVE' })).toEqual({})
    expect(changedFields(original, { name: 'Anne', email: 'ann@example.com', phone: '123', role: 'ADMIN', status: 'ACTIVE' })).toEqual({
      name: 'Anne',
      phone: '123',
      role: 'ADMIN',
    })
  })
})

describe('unavailable actions say why, to keyboards and screen readers too', () => {
  const reasonOf = (item: HTMLElement) => document.getElementById(item.getAttribute('aria-describedby') ?? '')?.textContent

  test('own account: no edit, no delete; reachable with the arrow keys', async () => {
    const { user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (4)' })
    screen.getByRole('button', { name: 'Actions for Ada Admin' }).focus()
    await user.keyboard('{Enter}')
    const menu = await screen.findByRole('menu')
    await waitFor(() => expect(document.activeElement?.textContent).toContain('Edit'))
    const edit = document.activeElement as HTMLElement
    expect(edit.getAttribute('aria-disabled')).toBe('true')
    expect(reasonOf(edit)).toBe('Admins cannot edit their own account to prevent accidental privilege loss')
    // The security actions follow the edit rule: not on one's own account.
    for (const action of ['Send password reset link', 'Sign out everywhere', 'Reset two-factor and passkeys']) {
      await user.keyboard('{ArrowDown}')
      const item = document.activeElement as HTMLElement
      expect(item.textContent).toContain(action)
      expect(reasonOf(item)).toBe('Admins cannot edit their own account to prevent accidental privilege loss')
    }
    await user.keyboard('{ArrowDown}')
    const remove = document.activeElement as HTMLElement
    expect(remove.textContent).toContain('Delete')
    expect(reasonOf(remove)).toBe('You cannot delete your own account')
    await user.keyboard('{Enter}')
    expect(within(menu).getAllByRole('menuitem')).toHaveLength(5)
    expect(screen.queryByRole('dialog')).toBeNull()
  })

  test('another admin: editable, not deletable', async () => {
    const { user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (4)' })
    const menu = await openActions(user, 'Otto Admin')
    expect(within(menu).getByRole('menuitem', { name: /Edit/ }).getAttribute('aria-disabled')).toBeNull()
    expect(reasonOf(within(menu).getByRole('menuitem', { name: /Delete/ }))).toBe('Admin users cannot be deleted')
  })

  test('the reason is a tooltip the item is described by, shown while the item has focus, not part of its name', async () => {
    const { user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (4)' })
    const menu = await openActions(user, 'Otto Admin')
    const remove = within(menu).getByRole('menuitem', { name: 'Delete' })
    const tooltip = document.getElementById(remove.getAttribute('aria-describedby') ?? '')!
    expect(tooltip.getAttribute('role')).toBe('tooltip')
    expect(tooltip.textContent).toBe('Admin users cannot be deleted')
    // Outside the item, so its visible text stays its label alone.
    expect(remove.contains(tooltip)).toBe(false)
    expect(tooltip.hidden).toBe(true)
    remove.focus()
    await waitFor(() => expect(tooltip.hidden).toBe(false))
    await user.keyboard('{ArrowUp}')
    await waitFor(() => expect(tooltip.hidden).toBe(true))
    // Enabled entries have no tooltip.
    expect(within(menu).getByRole('menuitem', { name: 'Edit' }).getAttribute('aria-describedby')).toBeNull()
    expect(screen.getAllByRole('tooltip', { hidden: true })).toHaveLength(1)
  })

  test('an active user must be made inactive before deletion', async () => {
    const { user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (4)' })
    const menu = await openActions(user, 'Cleo Client')
    expect(reasonOf(within(menu).getByRole('menuitem', { name: /Delete/ }))).toBe('User must be inactive before deletion')
  })

  test('an inactive user can be deleted after confirmation', async () => {
    const { api, user } = renderUsers()
    api.on('DELETE /admin/users/:id', ok(undefined, 'User deleted successfully'))
    await screen.findByRole('heading', { name: 'User Management (4)' })
    await user.click(within(await openActions(user, 'Ivy Inactive')).getByRole('menuitem', { name: 'Delete' }))
    const dialog = await screen.findByRole('dialog', { name: 'Confirm User Deletion' })
    expect(dialog.textContent).toContain('Are you sure you want to delete Ivy Inactive (ivy@example.com)?')
    await user.click(within(dialog).getByRole('button', { name: 'Delete User' }))
    await waitFor(() => expect(toastTexts()).toEqual(['User deleted successfully']))
    expect(api.callsTo('DELETE /admin/users/:id')[0]!.path).toBe(`/admin/users/${retired.id}`)
  })

  test('a refused deletion shows the server message, else the fallback', async () => {
    const { api, user } = renderUsers()
    api.on('DELETE /admin/users/:id', { status: 500 })
    await screen.findByRole('heading', { name: 'User Management (4)' })
    await user.click(within(await openActions(user, 'Ivy Inactive')).getByRole('menuitem', { name: 'Delete' }))
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete User' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Failed to delete user']))
  })
})

describe('focus goes back to the row when a dialog closes', () => {
  const actionsOf = (name: string) => screen.getByRole('button', { name: `Actions for ${name}` })

  /** Opens the row's menu and chooses `item`, all by keyboard, as a keyboard user would. */
  async function chooseByKeyboard(user: ReturnType<typeof renderApp>['user'], name: string, item: 'Edit' | 'Delete', dialogName: string) {
    actionsOf(name).focus()
    await user.keyboard('{Enter}')
    await screen.findByRole('menu')
    await waitFor(() => expect(document.activeElement?.textContent).toContain('Edit'))
    if (item === 'Delete') await user.keyboard('{End}')
    await user.keyboard('{Enter}')
    return screen.findByRole('dialog', { name: dialogName })
  }

  test.each(['Escape', 'Cancel', 'Save Changes'])('Edit User closed with %s: the actions button of the row', async (how) => {
    const { api, user } = renderUsers()
    api.on('PUT /admin/users/:id', (request) => ok({ ...client, ...(request.body as object) }))
    await screen.findByRole('heading', { name: 'User Management (4)' })
    const dialog = await chooseByKeyboard(user, 'Cleo Client', 'Edit', 'Edit User')
    if (how === 'Escape') await user.keyboard('{Escape}')
    else {
      if (how === 'Save Changes') await user.selectOptions(within(dialog).getByLabelText('Status'), 'SUSPENDED')
      await user.click(within(dialog).getByRole('button', { name: how }))
    }
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    await waitFor(() => expect(document.activeElement).toBe(actionsOf('Cleo Client')))
  })

  test('Confirm User Deletion cancelled: the actions button of the row', async () => {
    const { user } = renderUsers()
    await screen.findByRole('heading', { name: 'User Management (4)' })
    const dialog = await chooseByKeyboard(user, 'Ivy Inactive', 'Delete', 'Confirm User Deletion')
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    await waitFor(() => expect(document.activeElement).toBe(actionsOf('Ivy Inactive')))
  })

  test("after a deletion the row is gone: the next row's actions button, else the one before", async () => {
    const dora = makeUser({ name: 'Dora Dormant', status: 'INACTIVE' })
    let listed = [admin, retired, dora]
    const api = installFakeApi()
      .on('GET /admin/users', () => ok({ users: listed, pagination: { page: 1, limit: 10, total: listed.length, pages: 1 } }))
      .on('DELETE /admin/users/:id', (request) => {
        listed = listed.filter((candidate) => candidate.id !== request.params.id)
        return ok(undefined, 'User deleted successfully')
      })
    const { user } = renderApp(<UsersPage />, { url: '/admin/users', user: admin })
    await screen.findByRole('heading', { name: 'User Management (3)' })

    let dialog = await chooseByKeyboard(user, 'Ivy Inactive', 'Delete', 'Confirm User Deletion')
    await user.click(within(dialog).getByRole('button', { name: 'Delete User' }))
    await screen.findByRole('heading', { name: 'User Management (2)' })
    await waitFor(() => expect(document.activeElement).toBe(actionsOf('Dora Dormant')))

    dialog = await chooseByKeyboard(user, 'Dora Dormant', 'Delete', 'Confirm User Deletion')
    await user.click(within(dialog).getByRole('button', { name: 'Delete User' }))
    await screen.findByRole('heading', { name: 'User Management (1)' })
    await waitFor(() => expect(document.activeElement).toBe(actionsOf('Ada Admin')))
    expect(api.callsTo('DELETE /admin/users/:id')).toHaveLength(2)
  })
})
