import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import type { SignedInDevice } from '~shared/schemas/sessions'
import { SignedInDevices } from '~web/features/security/components/signed-in-devices'
import { fail, installFakeApi, ok } from './support/fake-api'
import { toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()

const here: SignedInDevice = {
  id: '11111111-1111-4111-8111-111111111111',
  current: true,
  browser: 'Chrome 131',
  os: 'macOS',
  ipAddress: '198.51.100.4',
  createdAt: minutesAgo(600),
  lastUsedAt: minutesAgo(0),
}
const phone: SignedInDevice = {
  id: '22222222-2222-4222-8222-222222222222',
  current: false,
  browser: 'Safari 18',
  os: 'iOS',
  ipAddress: '192.0.2.33',
  createdAt: minutesAgo(300),
  lastUsedAt: minutesAgo(5),
}
const unknown: SignedInDevice = {
  id: '33333333-3333-4333-8333-333333333333',
  current: false,
  browser: null,
  os: null,
  ipAddress: null,
  createdAt: minutesAgo(90),
  lastUsedAt: minutesAgo(90),
}

function renderDevices(sessions: SignedInDevice[]) {
  const api = installFakeApi()
  let live = sessions
  api.on('GET /auth/sessions', () => ok({ sessions: live }))
  api.on('DELETE /auth/sessions/:id', (request) => {
    live = live.filter((session) => session.id !== request.params.id)
    return ok(undefined, 'Device signed out')
  })
  api.on('DELETE /auth/sessions', () => {
    live = live.filter((session) => session.current)
    return ok(undefined, 'Signed out of all other devices')
  })
  return { api, ...renderApp(<SignedInDevices />, { url: '/profile', user: makeUser() }) }
}

const items = () => within(screen.getByRole('list', { name: 'Signed-in devices' })).getAllByRole('listitem')

describe('signed-in devices', () => {
  test('lists each device: this one marked and active now, the others with address and last activity', async () => {
    renderDevices([here, phone, unknown])
    await waitFor(() => expect(items()).toHaveLength(3))
    const [first, second, third] = items() as [HTMLElement, HTMLElement, HTMLElement]
    expect(first.textContent).toContain('Chrome 131 on macOS')
    expect(first.textContent).toContain('This device')
    expect(first.textContent).toContain('IP address 198.51.100.4 · Active now')
    expect(within(first).queryByRole('button')).toBeNull()
    expect(second.textContent).toContain('Safari 18 on iOS')
    expect(second.textContent).toContain('Last active: 5 minutes ago')
    expect(within(second).getByRole('button', { name: 'Sign out Safari 18 on iOS' })).toBeTruthy()
    expect(third.textContent).toContain('Unknown browser on unknown system')
    expect(third.textContent).not.toContain('IP address')
  })

  test('signs one device out with a toast, and the list follows', async () => {
    const { api, user } = renderDevices([here, phone, unknown])
    await waitFor(() => expect(items()).toHaveLength(3))
    await user.click(screen.getByRole('button', { name: 'Sign out Safari 18 on iOS' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Safari 18 on iOS signed out']))
    expect(api.callsTo('DELETE /auth/sessions/:id').map((call) => call.params.id)).toEqual([phone.id])
    await waitFor(() => expect(items()).toHaveLength(2))
  })

  test('a refused sign-out says why', async () => {
    const { api, user } = renderDevices([here, phone])
    api.on('DELETE /auth/sessions/:id', fail(404, 'Session not found', { code: 'SESSION_NOT_FOUND' }))
    await waitFor(() => expect(items()).toHaveLength(2))
    await user.click(screen.getByRole('button', { name: 'Sign out Safari 18 on iOS' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Session not found']))
  })

  test('asks before signing out every other device, then says it is the only one left', async () => {
    const { api, user } = renderDevices([here, phone, unknown])
    await waitFor(() => expect(items()).toHaveLength(3))
    await user.click(screen.getByRole('button', { name: 'Sign out of all other devices' }))
    const dialog = await screen.findByRole('dialog', { name: 'Sign out of all other devices?' })
    expect(dialog.textContent).toContain('Every other device (2) will have to sign in again.')
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(api.callsTo('DELETE /auth/sessions')).toHaveLength(0)

    await user.click(screen.getByRole('button', { name: 'Sign out of all other devices' }))
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Sign out other devices' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Signed out of all other devices']))
    expect(api.callsTo('DELETE /auth/sessions')).toHaveLength(1)
    await screen.findByText('This is the only device signed in to your account.')
    expect(items()).toHaveLength(1)
    expect(screen.queryByRole('button', { name: 'Sign out of all other devices' })).toBeNull()
  })

  test('a list that fails to load offers Retry', async () => {
    const api = installFakeApi()
    api.on('GET /auth/sessions', { status: 500 })
    const { user } = renderApp(<SignedInDevices />, { url: '/profile', user: makeUser() })
    await screen.findByText('Failed to load your signed-in devices. Please try again.')
    api.on('GET /auth/sessions', ok({ sessions: [here] }))
    await user.click(screen.getByRole('button', { name: 'Retry' }))
    await waitFor(() => expect(items()).toHaveLength(1))
  })
})
