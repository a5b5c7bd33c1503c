import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test, vi } from 'vitest'
import { activityText, badgeText } from '~web/components/activity/activity-text'
import { OwnDataSection } from '~web/features/security/components/own-data-section'
import { setLanguage, t } from '~web/lib/i18n'
import { session } from '~web/lib/session'
import { fail, installFakeApi, ok } from './support/fake-api'
import { toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

/**
 * The Security tab's own data, against a fake API: the download, an administrator told why they
 * cannot delete their account, and the delete dialog naming what will be lost, asking the second
 * step when two-factor is on, showing a wrong password under its field, and ending the session
 * once the account is gone.
 */
const PASSKEYS = [{ id: 'p1', name: 'Work laptop', createdAt: '2026-06-01T10:00:00.000Z', lastUsedAt: null }]
const APPS = [{ id: 'wiki', name: 'Team Wiki', scopes: ['openid'], grantedAt: '2026-06-01T10:00:00.000Z', lastUsedAt: null }]

function renderSection(options: { role?: 'ADMIN' | 'CLIENT'; totp?: boolean } = {}) {
  const api = installFakeApi()
  api.on('GET /auth/mfa', () => ok({ totp: options.totp ?? false, recoveryCodesLeft: options.totp ? 10 : 0, passkeys: 1 }))
  api.on('GET /auth/passkeys', () => ok({ passkeys: PASSKEYS }))
  api.on('GET /auth/applications', () => ok({ applications: APPS }))
  api.on('POST /auth/delete-account', (request) => {
    const body = request.body as { password: string; code?: string }
    if (body.password !== 'Right-Password-1!')
      return fail(400, 'Current password is incorrect', { code: 'VALIDATION_ERROR', errors: [{ field: 'password', message: 'Current password is incorrect' }] })
    if (options.totp && body.code !== '123456') return fail(400, 'Invalid code', { code: 'VALIDATION_ERROR', errors: [{ field: 'code', message: 'Invalid code' }] })
    return { status: 200, body: { success: true, message: 'Your account has been deleted' } }
  })
  const user = makeUser({ role: options.role ?? 'CLIENT' })
  return { api, ...renderApp(<OwnDataSection isAdmin={user.role === 'ADMIN'} />, { url: '/profile', user }) }
}

describe('own data section', () => {
  test('downloads the file the server names, and says where it went', async () => {
    const api = installFakeApi()
    api.on('GET /auth/export', {
      status: 200,
      body: '{"exportedAt":"2026-06-01T12:00:00.000Z"}',
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-disposition': 'attachment; filename="accounts-export-2026-06-01.json"' },
    })
    const createObjectURL = vi.fn(() => 'blob:export')
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() })
    const { user } = renderApp(<OwnDataSection isAdmin={false} />, { url: '/profile', user: makeUser() })
    await user.click(screen.getByRole('button', { name: 'Download your data' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Your data was saved as accounts-export-2026-06-01.json']))
    expect(api.callsTo('GET /auth/export')).toHaveLength(1)
    expect(createObjectURL).toHaveBeenCalledTimes(1)
  })

  test('tells an administrator why the button does nothing, where a screen reader reaches it', async () => {
    const { api, user } = renderSection({ role: 'ADMIN' })
    const button = screen.getByRole('button', { name: 'Delete account' })
    expect(button.getAttribute('aria-disabled')).toBe('true')
    const note = document.getElementById(button.getAttribute('aria-describedby')!)
    expect(note?.textContent).toBe('Administrators cannot delete their own account: another administrator must change your role first.')
    await user.click(button)
    expect(screen.queryByRole('dialog')).toBeNull()
    expect(api.callsTo('POST /auth/delete-account')).toHaveLength(0)
  })

  test('names what will be lost, asks the password and the code, shows a wrong one under its field, and ends the session once deleted', async () => {
    const { api, user } = renderSection({ totp: true })
    await user.click(screen.getByRole('button', { name: 'Delete account' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' })
    const losses = await within(dialog).findByRole('list', { name: 'What you will lose' })
    expect(
      within(losses)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'Your profile, your picture and your password',
      'Your passkeys (1)',
      'Two-factor authentication and your recovery codes',
      'The access you gave apps: Team Wiki',
      'Every session: you will be signed out on every device and in every app',
      'Your name on your activity: the log keeps its entries, shown as an unknown user',
    ])

    await user.type(within(dialog).getByLabelText('Current password'), 'Wrong-Password-1!')
    await user.type(within(dialog).getByLabelText('Code from your authenticator app'), '123456')
    await user.click(within(dialog).getByRole('button', { name: 'Delete my account' }))
    expect(await within(dialog).findByText('Current password is incorrect')).toBeTruthy()
    expect(session.get().authenticated).toBe(true)

    const password = within(dialog).getByLabelText('Current password')
    await user.clear(password)
    await user.type(password, 'Right-Password-1!')
    await user.click(within(dialog).getByRole('button', { name: 'Delete my account' }))
    await waitFor(() => expect(session.get().authenticated).toBe(false))
    expect(session.get().ended).toBeUndefined()
    expect(localStorage.getItem('accessToken')).toBeNull()
    await waitFor(() => expect(toastTexts()).toContain('Your account has been deleted'))
    expect(api.callsTo('POST /auth/delete-account').map((call) => call.body)).toEqual([
      { password: 'Wrong-Password-1!', code: '123456' },
      { password: 'Right-Password-1!', code: '123456' },
    ])
  })

  test('takes a recovery code instead of the app’s code', async () => {
    const { api, user } = renderSection({ totp: true })
    await user.click(screen.getByRole('button', { name: 'Delete account' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' })
    await user.type(await within(dialog).findByLabelText('Current password'), 'Right-Password-1!')
    await user.click(within(dialog).getByRole('button', { name: 'Use a recovery code instead' }))
    expect(within(dialog).queryByLabelText('Code from your authenticator app')).toBeNull()
    await user.type(within(dialog).getByLabelText('Recovery code'), 'abcd-efgh-jkmn-pqrs')
    await user.click(within(dialog).getByRole('button', { name: 'Delete my account' }))
    await waitFor(() => expect(api.callsTo('POST /auth/delete-account')).toHaveLength(1))
    expect(api.callsTo('POST /auth/delete-account')[0]!.body).toEqual({ password: 'Right-Password-1!', recoveryCode: 'abcdefghjkmnpqrs' })
  })

  test('asks no code when two-factor is off; Cancel deletes nothing', async () => {
    const { api, user } = renderSection()
    await user.click(screen.getByRole('button', { name: 'Delete account' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' })
    await within(dialog).findByLabelText('Current password')
    expect(within(dialog).queryByLabelText('Code from your authenticator app')).toBeNull()
    await user.click(within(dialog).getByRole('button', { name: 'Delete my account' }))
    expect(await within(dialog).findByText('Current password is required')).toBeTruthy()
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(api.callsTo('POST /auth/delete-account')).toHaveLength(0)
    expect(session.get().authenticated).toBe(true)
  })

  test('speaks the chosen language, and the entries of a download and a deletion read in it', async () => {
    await setLanguage('es')
    const { user } = renderSection()
    await user.click(screen.getByRole('button', { name: 'Eliminar la cuenta' }))
    const dialog = await screen.findByRole('dialog', { name: '¿Eliminar tu cuenta?' })
    expect(await within(dialog).findByText('Tu nombre en tu actividad: el registro conserva sus entradas, mostradas como de un usuario desconocido')).toBeTruthy()
    expect(activityText('Downloaded account data', { t, lang: 'es' })).toBe('Datos de la cuenta descargados')
    expect(activityText('Deleted account Ana Ruiz (ana@example.com)', { t, lang: 'es' })).toBe('Cuenta Ana Ruiz (ana@example.com) eliminada')
    expect(activityText('Failed account deletion', { t, lang: 'es' })).toBe('Eliminación de la cuenta fallida')
    expect(badgeText('Downloaded', { t })).toBe('Descargado')
  })
})
