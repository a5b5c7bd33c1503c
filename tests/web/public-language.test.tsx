import { screen, waitFor } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import { SETTINGS_STORAGE_KEY } from '~web/config/app'
import { AccountStatusPage } from '~web/features/access/components/account-status-page'
import { ForgotPasswordPage } from '~web/features/auth/components/forgot-password-page'
import { LoginPage } from '~web/features/auth/components/login-page'
import { RegisterPage } from '~web/features/auth/components/register-page'
import { ResetPasswordPage } from '~web/features/auth/components/reset-password-page'
import { VerifyEmailPage } from '~web/features/auth/components/verify-email-page'
import { browserLanguage, currentLanguage } from '~web/lib/i18n'
import { parseSettings } from '~web/lib/settings'
import { installFakeApi, ok } from './support/fake-api'
import { renderApp } from './support/render-app'

/** The language can be chosen before signing in; until it is, the browser's language is used. */
describe('the language before sign-in', () => {
  test.each([
    ['/login', <LoginPage key="login" />],
    ['/register', <RegisterPage key="register" />],
    ['/forgot-password', <ForgotPasswordPage key="forgot" />],
    ['/reset-password?token=abc', <ResetPasswordPage key="reset" />],
    ['/verify-email?email=ann%40example.com', <VerifyEmailPage key="verify" />],
    ['/account-status?status=suspended', <AccountStatusPage key="status" />],
  ])('%s offers the four languages, each named in itself', (url, ui) => {
    renderApp(ui, { url })
    const chooser = screen.getByRole('combobox', { name: 'Language' }) as HTMLSelectElement
    expect([...chooser.options].map((option) => [option.value, option.text])).toEqual([
      ['en', 'English'],
      ['fr', 'Français'],
      ['es', 'Español'],
      ['de', 'Deutsch'],
    ])
    expect(chooser.value).toBe('en')
    // The product's name and mark head every signed-out page.
    const banner = screen.getByRole('banner')
    expect(banner.textContent).toContain('Accounts')
    expect(banner.querySelector('svg[aria-hidden]')).not.toBeNull()
  })

  test('choosing French on the sign-in page translates it at once and keeps the choice as the Settings page does', async () => {
    installFakeApi()
    const { user } = renderApp(<LoginPage />, { url: '/login' })
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'fr')
    expect(await screen.findByRole('heading', { name: 'Connexion', level: 1 })).toBeTruthy()
    expect(screen.getByRole('combobox', { name: 'Langue' })).toBeTruthy()
    expect(document.documentElement.lang).toBe('fr')
    expect(currentLanguage()).toBe('fr')
    expect(JSON.parse(window.localStorage.getItem(SETTINGS_STORAGE_KEY)!)).toMatchObject({ language: 'fr', theme: 'system' })
  })

  test('the e-mail a public page causes is asked for in the language shown', async () => {
    const api = installFakeApi().on('POST /auth/forgot-password', ok(undefined, 'If an account exists for this address, a password reset link has been sent.'))
    const { user } = renderApp(<ForgotPasswordPage />, { url: '/forgot-password' })
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'de')
    await screen.findByRole('combobox', { name: 'Sprache' })
    await user.type(screen.getByRole('textbox'), 'ann@example.com')
    await user.click(screen.getByRole('button', { name: 'Link senden' }))
    await waitFor(() => expect(api.calls).toHaveLength(1))
    expect(api.calls[0]!.headers.get('Accept-Language')).toBe('de')
  })

  test('with nothing chosen, the first of the browser languages the app speaks, else English', () => {
    expect(browserLanguage(['de-DE', 'en-US', 'en'])).toBe('de')
    expect(browserLanguage(['ja', 'pt-BR', 'es-MX'])).toBe('es')
    expect(browserLanguage(['FR'])).toBe('fr')
    expect(browserLanguage(['ja', 'zh-CN'])).toBe('en')
    expect(browserLanguage([])).toBe('en')
    expect(browserLanguage(undefined)).toBe('en')
    expect(parseSettings(null, 'de').language).toBe('de')
    expect(parseSettings('{"theme":"dark"}', 'es').language).toBe('es')
    expect(parseSettings('{"language":"fr"}', 'de').language).toBe('fr')
  })
})
