import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import { PasskeysSection } from '~web/features/security/components/passkeys-section'
import { fail, installFakeApi, ok } from './support/fake-api'
import { fieldError, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

/**
 * The Security tab's Passkeys section, against a fake API. The test browser (jsdom) has no
 * WebAuthn: the list is there, with rename and remove, but no "Add a passkey", and a note says why.
 */
const me = makeUser({ name: 'Ann Smith', email: 'ann@example.com' })
const laptop = { id: '00000000-0000-4000-8000-000000000001', name: 'Laptop', createdAt: '2026-01-05T10:00:00.000Z', lastUsedAt: '2026-03-01T08:30:00.000Z' }
const key = { id: '00000000-0000-4000-8000-000000000002', name: 'Security key', createdAt: '2026-02-11T16:20:00.000Z', lastUsedAt: null }

function renderSection(passkeys = [laptop, key]) {
  const api = installFakeApi()
  let current = [...passkeys]
  api.on('GET /auth/passkeys', () => ok({ passkeys: current }))
  api.on('PATCH /auth/passkeys/:id', (request) => {
    const found = current.find((p) => p.id === request.params.id)
    if (!found) return fail(404, 'Passkey not found', { code: 'NOT_FOUND' })
    current = current.map((p) => (p === found ? { ...p, name: (request.body as { name: string }).name } : p))
    return ok({ passkey: current.find((p) => p.id === found.id) }, 'Passkey renamed')
  })
  api.on('DELETE /auth/passkeys/:id', (request) => {
    current = current.filter((p) => p.id !== request.params.id)
    return { status: 200, body: { success: true, message: 'Passkey removed' } }
  })
  return { api, ...renderApp(<PasskeysSection />, { url: '/profile', user: me }) }
}

describe('passkeys section', () => {
  test('lists each passkey with when it was created and last used; no WebAuthn, no "Add a passkey"', async () => {
    renderSection()
    const list = await screen.findByRole('list', { name: 'Your passkeys' })
    const items = within(list).getAllByRole('listitem')
    expect(items.map((item) => item.textContent)).toEqual([
      expect.stringMatching(/^Laptop.*Created Jan 5, 2026 · last used Mar 1, 2026/),
      expect.stringMatching(/^Security key.*Created Feb 11, 2026 · never used/),
    ])
    expect(screen.queryByRole('button', { name: 'Add a passkey' })).toBeNull()
    expect(screen.getByText('This browser cannot create passkeys. You can still rename or remove the ones you have.')).toBeTruthy()
  })

  test('says so when there is none', async () => {
    renderSection([])
    expect(await screen.findByText('You have no passkeys yet.')).toBeTruthy()
  })

  test('renames a passkey, with the shared schema’s message for an empty name', async () => {
    const { api, user } = renderSection()
    await user.click(await screen.findByRole('button', { name: 'Rename Laptop' }))
    const dialog = screen.getByRole('dialog', { name: 'Rename passkey' })
    const name = within(dialog).getByLabelText('Passkey name')
    await user.clear(name)
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(fieldError('Passkey name')).toBe('Passkey name is required'))
    expect(api.callsTo('PATCH /auth/passkeys/:id')).toHaveLength(0)

    await user.type(name, 'Work laptop')
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Passkey renamed']))
    expect(api.callsTo('PATCH /auth/passkeys/:id')[0]!.body).toEqual({ name: 'Work laptop' })
    await screen.findByRole('button', { name: 'Rename Work laptop' })
    expect(screen.queryByRole('dialog')).toBeNull()
  })

  test('removes a passkey after a confirmation that names it; Cancel removes nothing', async () => {
    const { api, user } = renderSection()
    await user.click(await screen.findByRole('button', { name: 'Remove Security key' }))
    let dialog = screen.getByRole('dialog', { name: 'Remove this passkey?' })
    expect(dialog.textContent).toContain('“Security key” will no longer sign you in.')
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(api.callsTo('DELETE /auth/passkeys/:id')).toHaveLength(0)

    await user.click(screen.getByRole('button', { name: 'Remove Security key' }))
    dialog = screen.getByRole('dialog', { name: 'Remove this passkey?' })
    await user.click(within(dialog).getByRole('button', { name: 'Remove passkey' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Passkey removed']))
    expect(api.callsTo('DELETE /auth/passkeys/:id')[0]!.path).toBe(`/auth/passkeys/${key.id}`)
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Remove Security key' })).toBeNull())
  })
})
