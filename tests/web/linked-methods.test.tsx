import { screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import type { LinkedIdentity } from '~shared/schemas/federation'
import { LinkedMethodsSection } from '~web/features/security/components/linked-methods-section'
import { OwnDataSection } from '~web/features/security/components/own-data-section'
import { browserNavigation } from '~web/lib/app-interaction'
import { session } from '~web/lib/session'
import { type FakeApi, fail, installFakeApi, ok } from './support/fake-api'
import { fieldError, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

/**
 * Profile → Security, against a fake API: the linked sign-in methods (list, unlink with the
 * server's refusal of the last way in, link after the password), and deleting an account that has
 * no password by signing in again with its provider.
 */
const SSO: LinkedIdentity = {
  id: 'fid-1',
  providerId: 'idp_companysso',
  providerName: 'Company SSO',
  kind: 'oidc',
  email: 'pat@example.com',
  linkedAt: '2026-06-01T10:00:00.000Z',
  lastUsedAt: '2026-06-02T10:00:00.000Z',
}
const PROVIDERS = [
  { id: 'idp_companysso', name: 'Company SSO', kind: 'oidc' },
  { id: 'idp_github', name: 'GitHub', kind: 'github' },
]

let assign: ReturnType<typeof vi.fn<(url: string) => void>>
beforeEach(() => {
  assign = vi.fn<(url: string) => void>()
  vi.spyOn(browserNavigation, 'assign').mockImplementation(assign)
})
afterEach(() => vi.restoreAllMocks())

function withIdentities(api: FakeApi, identities: LinkedIdentity[], hasPassword: boolean) {
  return api
    .on('GET /auth/identities', () => ok({ identities, hasPassword }))
    .on('GET /auth/identity-providers', ok({ identityProviders: PROVIDERS }))
    .on('GET /auth/passkeys', () => ok({ passkeys: [] }))
}

describe('linked sign-in methods', () => {
  test('lists each identity with its provider, address and dates; offers to link the providers not linked yet', async () => {
    withIdentities(installFakeApi(), [SSO], true)
    renderApp(<LinkedMethodsSection />, { url: '/profile', user: makeUser() })
    const list = await screen.findByRole('list', { name: 'Linked sign-in methods' })
    const item = within(list).getByRole('listitem')
    expect(within(item).getByText('Company SSO')).toBeTruthy()
    expect(within(item).getByText('pat@example.com')).toBeTruthy()
    expect(item.textContent).toMatch(/Linked .*2026.* · last used .*2026/)
    expect(await screen.findByRole('button', { name: 'Link GitHub' })).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Link Company SSO' })).toBeNull()
  })

  test('unlinks after asking; the last way in is refused with the server’s words', async () => {
    const api = withIdentities(installFakeApi(), [SSO], false)
    api.on('DELETE /auth/identities/:id', fail(409, 'Add a password or a passkey before removing your last way to sign in', { code: 'LAST_SIGN_IN_METHOD' }))
    const { user } = renderApp(<LinkedMethodsSection />, { url: '/profile', user: makeUser() })
    expect(await screen.findByText(/Your account has no password/)).toBeTruthy()
    // Without a password, and without a passkey this browser can use, there is nothing to prove the account with before linking.
    expect(screen.getByText(/Linking asks for your password or a passkey/)).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Link GitHub' })).toBeNull()

    await user.click(screen.getByRole('button', { name: 'Unlink Company SSO' }))
    const dialog = await screen.findByRole('dialog', { name: 'Unlink this sign-in method?' })
    expect(within(dialog).getByText('You will no longer sign in with Company SSO. You can link it again later.')).toBeTruthy()
    await user.click(within(dialog).getByRole('button', { name: 'Unlink' }))
    expect((await screen.findByRole('alert')).textContent).toBe('Add a password or a passkey before removing your last way to sign in')
    expect(api.callsTo('DELETE /auth/identities/:id')[0]!.params.id).toBe('fid-1')

    api.on('DELETE /auth/identities/:id', ok(undefined, 'Sign-in method unlinked'))
    api.on('GET /auth/identities', () => ok({ identities: [], hasPassword: false }))
    await user.click(screen.getByRole('button', { name: 'Unlink Company SSO' }))
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Unlink' }))
    await waitFor(() => expect(toastTexts()).toContain('Company SSO unlinked'))
    expect(await screen.findByText('No sign-in method is linked.')).toBeTruthy()
  })

  test('linking asks for the password, then goes where the server says; a wrong password stays under its field', async () => {
    const api = withIdentities(installFakeApi(), [], true)
    api.on('POST /auth/identities/:providerId/link', (request) =>
      (request.body as { password: string }).password === 'Right-Password-1!'
        ? ok({ url: 'http://127.0.0.1:4999/auth?client_id=accounts&state=s' })
        : fail(400, 'Current password is incorrect', { code: 'VALIDATION_ERROR', errors: [{ field: 'password', message: 'Current password is incorrect' }] }),
    )
    const { user } = renderApp(<LinkedMethodsSection />, { url: '/profile', user: makeUser() })
    await user.click(await screen.findByRole('button', { name: 'Link GitHub' }))
    const dialog = await screen.findByRole('dialog', { name: 'Link GitHub' })
    await user.type(within(dialog).getByLabelText('Current password'), 'wrong')
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }))
    await waitFor(() => expect(fieldError('Current password')).toBe('Current password is incorrect'))
    expect(assign).not.toHaveBeenCalled()
    await user.clear(within(dialog).getByLabelText('Current password'))
    await user.type(within(dialog).getByLabelText('Current password'), 'Right-Password-1!')
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }))
    await waitFor(() => expect(assign).toHaveBeenCalledWith('http://127.0.0.1:4999/auth?client_id=accounts&state=s'))
    expect(api.callsTo('POST /auth/identities/:providerId/link')[1]!.params.providerId).toBe('idp_github')
  })
})

describe('deleting an account without a password', () => {
  function renderOwnData(api: FakeApi) {
    api.on('GET /auth/mfa', () => ok({ totp: false, recoveryCodesLeft: 0, passkeys: 0 }))
    api.on('GET /auth/passkeys', () => ok({ passkeys: [] }))
    api.on('GET /auth/applications', () => ok({ applications: [] }))
    return renderApp(<OwnDataSection isAdmin={false} />, { url: '/profile', user: makeUser() })
  }

  test('asks no password: offers to sign in again with its provider, back to the Security tab, then deletes with the fresh sign-in', async () => {
    const api = withIdentities(installFakeApi(), [SSO], false)
    let fresh = false
    api.on('POST /auth/delete-account', () =>
      fresh ? ok(undefined, 'Your account has been deleted') : fail(409, 'Sign in again, then delete your account within 5 minutes', { code: 'FRESH_SIGN_IN_REQUIRED' }),
    )
    const forget = vi.spyOn(session, 'forget')
    const { user } = renderOwnData(api)
    await user.click(screen.getByRole('button', { name: 'Delete account' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' })
    expect(await within(dialog).findByText(/Your account has no password/)).toBeTruthy()
    expect(within(dialog).queryByLabelText('Current password')).toBeNull()

    // Too long since the last sign-in: the server says so, and nothing is deleted.
    await user.click(within(dialog).getByRole('button', { name: 'Delete my account' }))
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Sign in again, then delete your account within 5 minutes')
    expect(api.callsTo('POST /auth/delete-account')[0]!.body).toEqual({ freshSignIn: true })
    expect(forget).not.toHaveBeenCalled()

    await user.click(within(dialog).getByRole('button', { name: 'Sign in again with Company SSO' }))
    expect(assign).toHaveBeenCalledWith('/api/auth/federation/idp_companysso/start?returnTo=%2Fprofile%3Ftab%3Dsecurity')

    fresh = true
    await user.click(within(dialog).getByRole('button', { name: 'Delete my account' }))
    await waitFor(() => expect(forget).toHaveBeenCalled())
    expect(api.callsTo('POST /auth/delete-account')[1]!.body).toEqual({ freshSignIn: true })
  })

  test('an account with a password is asked for it, as before', async () => {
    const api = withIdentities(installFakeApi(), [SSO], true)
    const { user } = renderOwnData(api)
    await user.click(screen.getByRole('button', { name: 'Delete account' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' })
    expect(await within(dialog).findByLabelText('Current password')).toBeTruthy()
    expect(within(dialog).queryByRole('button', { name: /Sign in again/ })).toBeNull()
  })
})
