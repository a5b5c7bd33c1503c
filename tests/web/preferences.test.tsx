import fs from 'node:fs'
import path from 'node:path'
import { screen, waitFor } from '@testing-library/react'
import { describe, expect, test, vi } from 'vitest'
import { LANGUAGES } from '~shared/constants'
import { adminRuleMessages } from '~shared/schemas/admin'
import { applicationMessages, applicationUriMessages } from '~shared/schemas/applications'
import { messages as fieldMessages } from '~shared/schemas/fields'
import { pageTooDeepMessage } from '~shared/schemas/lists'
import { deleteAccountMessages } from '~shared/schemas/own-data'
import { pictureMessages } from '~shared/schemas/profile'
import { twoFactorMessages } from '~shared/schemas/two-factor'
import { webhookMessages } from '~shared/schemas/webhooks'
import { passwordPolicyMessages } from '~shared/password-policy'
import { SETTINGS_STORAGE_KEY } from '~web/config/app'
import { SettingsPage } from '~web/features/settings/components/settings-page'
import { NETWORK_ERROR_MESSAGE, TIMEOUT_MESSAGE } from '~web/lib/failures'
import { currentLanguage, translateMessage, setLanguage } from '~web/lib/i18n'
import { parseSettings } from '~web/lib/settings'
import { en, type Messages } from '~web/locales/en'
import { enApp } from '~web/locales/en-app'
import { toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const locales: Record<string, () => Promise<{ default: Messages }>> = {
  fr: () => import('~web/locales/fr'),
  es: () => import('~web/locales/es'),
  de: () => import('~web/locales/de'),
}

function leaves(node: unknown, prefix = ''): Record<string, string> {
  if (typeof node === 'string') return { [prefix]: node }
  return Object.assign({}, ...Object.entries(node as object).map(([key, value]) => leaves(value, prefix ? `${prefix}.${key}` : key)))
}

describe('translations', () => {
  const english = leaves({ ...en, ...enApp, messages: {} })
  const shared = [
    ...Object.values(fieldMessages),
    ...Object.values(passwordPolicyMessages),
    ...Object.values(pictureMessages),
    ...Object.values(adminRuleMessages),
    ...Object.values(twoFactorMessages),
    ...Object.values(deleteAccountMessages),
    ...Object.values(applicationMessages),
    ...applicationUriMessages,
    ...Object.values(webhookMessages),
    pageTooDeepMessage,
    NETWORK_ERROR_MESSAGE,
    TIMEOUT_MESSAGE,
  ]

  test.each(Object.keys(locales))('%s has every text, translated, with the same placeholders', async (language) => {
    const dictionary = (await locales[language]!()).default
    const translated = leaves({ ...dictionary, messages: {} })
    expect(Object.keys(translated).sort()).toEqual(Object.keys(english).sort())
    for (const [key, text] of Object.entries(english)) {
      const placeholders = (value: string) => (value.match(/\{\{\w+\}\}/g) ?? []).sort()
      expect(placeholders(translated[key]!), key).toEqual(placeholders(text))
      expect(translated[key], key).not.toBe('')
    }
    const untranslated = Object.entries(translated).filter(
      ([key, text]) =>
        text === english[key] &&
        !/^(app\.name|languageChooser\.names|nav\.debug|common\.no|.*\.status|.*\.columns\.status|.*\.actions|.*Filter|profile\.profileTab|common\.pagination|(nav|activity\.filters)\.applications|applications\.(title|list|columns\.type|fields\.type)|nav\.webhooks|webhooks\.title|signInMethods\.(kinds\.|columns\.name|fields\.name))/.test(
          key,
        ),
    )
    expect(untranslated.length, JSON.stringify(untranslated)).toBeLessThan(12)
  })

  test.each(Object.keys(locales))('%s translates every message the shared schemas and the client can show', async (language) => {
    const dictionary = (await locales[language]!()).default
    const missing = shared.filter((message) => !dictionary.messages[message])
    expect(missing).toEqual([])
  })

  test.each(['en', ...Object.keys(locales)])('%s: a button named for its row still contains the words it shows (WCAG 2.5.3, label in name)', async (language) => {
    const dictionary = language === 'en' ? { ...en, ...enApp } : (await locales[language]!()).default
    const words = (text: string) => text.toLocaleLowerCase(language).split(/\s+/).filter(Boolean)
    const containsLabel = (name: string, label: string) => words(name).join(' ').includes(words(label).join(' '))
    for (const area of ['developer', 'moderator'] as const) {
      const name = dictionary[area].changeStatusFor.replace(/\{\{\w+\}\}/g, 'Sample')
      expect(containsLabel(name, dictionary[area].changeStatus), `${area}: "${name}" / "${dictionary[area].changeStatus}"`).toBe(true)
    }
  })

  test('messages fall back to the English text when unknown', async () => {
    await setLanguage('fr')
    expect(translateMessage('Invalid email address')).toBe('Adresse e-mail invalide')
    expect(translateMessage('Something new from the server')).toBe('Something new from the server')
  })
})

describe('settings page', () => {
  test('switching to French and dark mode applies at once and is kept in this browser', async () => {
    const { user } = renderApp(<SettingsPage />, { url: '/settings', user: makeUser() })
    expect(screen.getByText('These preferences are stored in this browser on this device only.')).toBeTruthy()
    await user.selectOptions(screen.getByLabelText('Theme'), 'dark')
    await user.selectOptions(screen.getByLabelText('Language'), 'fr')
    await user.click(screen.getByRole('switch', { name: 'Compact sidebar' }))
    expect(document.documentElement.classList.contains('dark')).toBe(false)
    await user.click(screen.getByRole('button', { name: 'Save changes' }))

    await waitFor(() => expect(document.documentElement.classList.contains('dark')).toBe(true))
    expect(document.documentElement.lang).toBe('fr')
    expect(currentLanguage()).toBe('fr')
    expect(await screen.findByRole('heading', { name: 'Paramètres', level: 1 })).toBeTruthy()
    await waitFor(() => expect(toastTexts()).toContain('Paramètres enregistrés'))
    expect(JSON.parse(window.localStorage.getItem(SETTINGS_STORAGE_KEY)!)).toEqual({
      theme: 'dark',
      compactSidebar: true,
      emailNotifications: true,
      pushNotifications: false,
      weeklySummary: true,
      language: 'fr',
    })

    await user.click(screen.getByRole('button', { name: 'Rétablir les valeurs par défaut' }))
    await screen.findByRole('heading', { name: 'Settings', level: 1 })
    expect(document.documentElement.classList.contains('dark')).toBe(false)
    expect((screen.getByRole('switch', { name: 'Compact sidebar' }) as HTMLButtonElement).getAttribute('aria-checked')).toBe('false')
    expect(screen.getByRole('switch', { name: 'Email notifications' }).getAttribute('aria-checked')).toBe('true')
    expect(screen.getByRole('switch', { name: 'Weekly summary' }).getAttribute('aria-checked')).toBe('true')
    expect(screen.getByRole('switch', { name: 'Push notifications' }).getAttribute('aria-checked')).toBe('false')
  })

  test.each(LANGUAGES)('offers %s', (language) => {
    renderApp(<SettingsPage />, { url: '/settings', user: makeUser() })
    expect([...(screen.getByLabelText('Language') as HTMLSelectElement).options].map((option) => option.value)).toContain(language)
  })

  test('stored settings are read defensively', () => {
    expect(parseSettings(null)).toEqual({
      theme: 'system',
      compactSidebar: false,
      emailNotifications: true,
      pushNotifications: false,
      weeklySummary: true,
      language: 'en',
    })
    expect(parseSettings('{"theme":"neon","language":"xx","weeklySummary":false}')).toMatchObject({ theme: 'system', language: 'en', weeklySummary: false })
    expect(parseSettings('not json').theme).toBe('system')
  })
})

describe('theme before the first paint (public/theme.js)', () => {
  const script = fs.readFileSync(path.resolve(import.meta.dirname, '../../public/theme.js'), 'utf8')
  const run = (stored: unknown, prefersDark: boolean) => {
    document.documentElement.className = ''
    document.documentElement.lang = 'en'
    window.localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(stored))
    // Stubbed, not assigned: the setup's `vi.unstubAllGlobals()` puts its own stub back after the test.
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: prefersDark && query.includes('dark') }))
    new Function(script)()
    return { dark: document.documentElement.classList.contains('dark'), lang: document.documentElement.lang }
  }

  test('reads the same settings key as the app', () => {
    expect(script).toContain(`'${SETTINGS_STORAGE_KEY}'`)
  })

  test('dark when chosen, or when system and the system prefers dark', () => {
    expect(run({ theme: 'dark' }, false).dark).toBe(true)
    expect(run({ theme: 'light' }, true).dark).toBe(false)
    expect(run({ theme: 'system' }, true).dark).toBe(true)
    expect(run({ theme: 'system' }, false).dark).toBe(false)
    expect(run(null, true).dark).toBe(true)
  })

  test('sets the page language too', () => {
    expect(run({ theme: 'light', language: 'de' }, false).lang).toBe('de')
  })

  test('index.html loads it synchronously from the same origin, and has no inline script', () => {
    const html = fs.readFileSync(path.resolve(import.meta.dirname, '../../index.html'), 'utf8')
    expect(html).toMatch(/<head>[\s\S]*<script src="\/theme\.js"><\/script>[\s\S]*<\/head>/)
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>/g)]
    expect(inline).toEqual([])
  })
})
