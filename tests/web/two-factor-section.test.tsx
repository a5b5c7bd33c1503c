import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import { TwoFactorSection } from '~web/features/security/components/two-factor-section'
import { fail, installFakeApi, ok } from './support/fake-api'
import { fieldError, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const me = makeUser({ name: 'Ann Smith', email: 'ann@example.com' })
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'
const CODES = ['0123-4567-89ab-cdef', 'ghjk-mnpq-rstv-wxyz']

function renderSection(status: { totp: boolean; recoveryCodesLeft: number; passkeys: number }) {
  const api = installFakeApi().on('GET /auth/mfa', ok(status))
  return { api, ...renderApp(<TwoFactorSection email={me.email} />, { url: '/profile', user: me }) }
}

const section = () => screen.getByRole('region', { name: 'Two-factor authentication' })

describe('the two-factor section', () => {
  test('turns on: the password, then the QR code and the key as text, then a code, then the recovery codes once', async () => {
    const { api, user } = renderSection({ totp: false, recoveryCodesLeft: 0, passkeys: 0 })
    await within(section()).findByText('Off')
    await user.click(screen.getByRole('button', { name: 'Set up two-factor authentication' }))

    api.on(
      'POST /auth/mfa/totp/setup',
      fail(400, 'Current password is incorrect', { code: 'VALIDATION_ERROR', errors: [{ field: 'password', message: 'Current password is incorrect' }] }),
    )
    await user.type(screen.getByLabelText('Current password'), 'Wrong-Pass-1!')
    await user.click(screen.getByRole('button', { name: 'Continue' }))
    await waitFor(() => expect(fieldError('Current password')).toBe('Current password is incorrect'))

    api.on('POST /auth/mfa/totp/setup', ok({ secret: SECRET, otpauthUrl: `otpauth://totp/Accounts:ann?secret=${SECRET}`, qrCode: 'data:image/png;base64,AAAA' }))
    await user.click(screen.getByRole('button', { name: 'Continue' }))
    const qr = await screen.findByRole('img', { name: 'QR code for your authenticator app' })
    expect(qr.getAttribute('src')).toBe('data:image/png;base64,AAAA')
    expect(screen.getByTestId('totp-secret').textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP')
    const code = screen.getByLabelText('Code from the app')
    expect(code.getAttribute('autocomplete')).toBe('one-time-code')
    expect(code.getAttribute('inputmode')).toBe('numeric')

    api.on('POST /auth/mfa/totp/enable', fail(400, 'Invalid code', { code: 'VALIDATION_ERROR', errors: [{ field: 'code', message: 'Invalid code' }] }))
    await user.type(code, '123456')
    await user.click(screen.getByRole('button', { name: 'Turn on' }))
    await waitFor(() => expect(fieldError('Code from the app')).toBe('Invalid code'))

    api.on('POST /auth/mfa/totp/enable', ok({ recoveryCodes: CODES }))
    api.on('GET /auth/mfa', ok({ totp: true, recoveryCodesLeft: 2, passkeys: 0 }))
    await user.click(screen.getByRole('button', { name: 'Turn on' }))
    const list = await screen.findByRole('list', { name: 'Your recovery codes' })
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(CODES)
    expect(screen.getByRole('button', { name: 'Copy codes' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Download .txt' })).toBeTruthy()
    await waitFor(() => expect(toastTexts()).toContain('Two-factor authentication is on'))
    expect(api.callsTo('POST /auth/mfa/totp/enable').map((call) => call.body)).toEqual([{ code: '123456' }, { code: '123456' }])

    await user.click(screen.getByRole('button', { name: 'I have saved my codes' }))
    expect(screen.queryByRole('list', { name: 'Your recovery codes' })).toBeNull()
    await within(section()).findByText('Recovery codes left: 2')
  })

  test('turning off asks the password, then says so', async () => {
    const { api, user } = renderSection({ totp: true, recoveryCodesLeft: 7, passkeys: 0 })
    await within(section()).findByText('Recovery codes left: 7')
    await user.click(screen.getByRole('button', { name: 'Turn off' }))
    api.on('POST /auth/mfa/totp/disable', ok(undefined, 'Two-factor authentication is off'))
    api.on('GET /auth/mfa', ok({ totp: false, recoveryCodesLeft: 0, passkeys: 0 }))
    await user.type(screen.getByLabelText('Current password'), 'Correct-Horse-9!')
    await user.click(within(section()).getByRole('button', { name: 'Turn off' }))
    await waitFor(() => expect(toastTexts()).toContain('Two-factor authentication is off'))
    await within(section()).findByText('Off')
    expect(api.callsTo('POST /auth/mfa/totp/disable')[0]!.body).toEqual({ password: 'Correct-Horse-9!' })
  })
})
