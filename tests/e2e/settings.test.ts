import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { linkTexts, openSignedIn, toast } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * The settings page: the theme, applied at once
 * and before the first paint after a reload; the language, which really translates the menus;
 * reset to defaults. Settings live in this browser only.
 */
const e2e = browserTests()

const SETTINGS_KEY = 'accounts.settings'
const DEFAULTS = { theme: 'system', compactSidebar: false, emailNotifications: true, pushNotifications: false, weeklySummary: true, language: 'en' }

const MENUS = {
  en: ['Dashboard', 'Profile', 'My Activity', 'Settings', 'Activity Logs', 'Developer Dashboard'],
  fr: ['Tableau de bord', 'Profil', 'Mon activité', 'Paramètres', "Journaux d'activité", 'Tableau de bord développeur'],
  de: ['Übersicht', 'Profil', 'Meine Aktivität', 'Einstellungen', 'Aktivitätsprotokolle', 'Entwickler-Übersicht'],
}

async function stored(page: Page): Promise<unknown> {
  return page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? 'null'), SETTINGS_KEY)
}

async function rootLooks(page: Page) {
  return page.evaluate(() => ({
    dark: document.documentElement.classList.contains('dark'),
    colorScheme: document.documentElement.style.colorScheme,
    lang: document.documentElement.lang,
  }))
}

/**
 * Reloads with the app's own script held back, and reports how <html> looks once the page's
 * head has run but before any of the app's code has: that is what the first paint shows. It
 * then lets the app start and reports whether the app ever changed <html>'s theme.
 */
async function reloadAndLookBeforeTheApp(page: Page) {
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  const appScript = /\/assets\/index-[^/]+\.js$/
  await page.route(appScript, async (route) => {
    await held
    await route.continue()
  })
  await page.goto(page.url(), { waitUntil: 'commit' })
  // The parser is past <head> (so past theme.js) once #root exists; the app is not running yet.
  await page.waitForFunction(() => document.getElementById('root') !== null)
  const beforeApp = await page.evaluate(() => ({
    dark: document.documentElement.classList.contains('dark'),
    colorScheme: document.documentElement.style.colorScheme,
    lang: document.documentElement.lang,
    appRendered: (document.getElementById('root')?.childElementCount ?? 0) > 0,
  }))
  await page.evaluate(() => {
    const changes: string[] = []
    ;(window as unknown as { themeChanges: string[] }).themeChanges = changes
    new MutationObserver(() => changes.push(`${document.documentElement.className}|${document.documentElement.style.colorScheme}`)).observe(document.documentElement, {
      attributes: true,
      attributeFilter: ['class', 'style'],
    })
  })
  release()
  await page.getByRole('heading', { level: 1 }).waitFor()
  await page.unroute(appScript)
  const themeChanges = await page.evaluate(() => (window as unknown as { themeChanges: string[] }).themeChanges)
  return { beforeApp, themeChanges }
}

describe('settings', () => {
  test('a user picks the dark theme: it applies at once, and after a reload it is there before the app has run (no flash)', async () => {
    const account = await e2e.accounts.create()
    const { page } = await e2e.open({ colorScheme: 'light' })
    await openSignedIn(page, e2e.server, account, '/settings')
    await page.getByRole('heading', { name: 'Settings' }).waitFor()
    await page.getByText('These preferences are stored in this browser on this device only.').waitFor()
    expect(await rootLooks(page)).toMatchObject({ dark: false, colorScheme: 'light' })

    await page.getByLabel('Theme').selectOption({ label: 'Dark' })
    await page.getByRole('button', { name: 'Save changes' }).click()
    await toast(page, 'Settings saved').waitFor()
    expect(await rootLooks(page)).toMatchObject({ dark: true, colorScheme: 'dark' })
    expect(await stored(page)).toMatchObject({ theme: 'dark' })

    const { beforeApp, themeChanges } = await reloadAndLookBeforeTheApp(page)
    expect(beforeApp).toEqual({ dark: true, colorScheme: 'dark', lang: 'en', appRendered: false })
    expect(themeChanges.filter((change) => !change.includes('dark'))).toEqual([])
    expect(await rootLooks(page)).toMatchObject({ dark: true, colorScheme: 'dark' })
    expect(await page.getByLabel('Theme').inputValue()).toBe('dark')

    // "System" follows the operating system, also when it switches.
    await page.getByLabel('Theme').selectOption({ label: 'System' })
    await page.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => rootLooks(page)).toMatchObject({ dark: false, colorScheme: 'light' })
    await page.emulateMedia({ colorScheme: 'dark' })
    await expect.poll(() => rootLooks(page)).toMatchObject({ dark: true, colorScheme: 'dark' })
    const afterReload = await reloadAndLookBeforeTheApp(page)
    expect(afterReload.beforeApp).toMatchObject({ dark: true, colorScheme: 'dark', appRendered: false })
  })

  test('a user switches the language to French, then German, then back to English, and the menus follow', async () => {
    const account = await e2e.accounts.create({ role: 'DEVELOPER' })
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, account, '/settings')
    await page.getByRole('heading', { name: 'Settings' }).waitFor()
    const side = page.getByRole('complementary')
    expect(await linkTexts(side)).toEqual(MENUS.en)

    await page.getByLabel('Language').selectOption({ label: 'Français' })
    await page.getByRole('button', { name: 'Save changes' }).click()
    await page.getByRole('heading', { name: 'Paramètres', level: 1 }).waitFor()
    await expect.poll(() => linkTexts(side)).toEqual(MENUS.fr)
    await side.getByRole('navigation', { name: 'Menu latéral' }).waitFor()
    await toast(page, 'Paramètres enregistrés').waitFor()
    expect(await rootLooks(page)).toMatchObject({ lang: 'fr' })

    // Still French after a reload, from the first paint on.
    const { beforeApp } = await reloadAndLookBeforeTheApp(page)
    expect(beforeApp).toMatchObject({ lang: 'fr', appRendered: false })
    expect(await linkTexts(side)).toEqual(MENUS.fr)
    await page.getByRole('button', { name: /^Menu du compte de / }).waitFor()

    await page.getByLabel('Langue').selectOption({ label: 'Deutsch' })
    await page.getByRole('button', { name: 'Enregistrer les modifications' }).click()
    await page.getByRole('heading', { name: 'Einstellungen', level: 1 }).waitFor()
    await expect.poll(() => linkTexts(side)).toEqual(MENUS.de)
    expect(await side.getByRole('heading').allTextContents()).toEqual(['Allgemein', 'Verwaltung', 'Entwicklung'])
    expect(await rootLooks(page)).toMatchObject({ lang: 'de' })

    await page.getByLabel('Sprache').selectOption({ label: 'English' })
    await page.getByRole('button', { name: 'Änderungen speichern' }).click()
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
    await expect.poll(() => linkTexts(side)).toEqual(MENUS.en)
    expect(await rootLooks(page)).toMatchObject({ lang: 'en' })
  })

  test('a user changes every setting and resets them to the defaults', async () => {
    const account = await e2e.accounts.create({ role: 'DEVELOPER' })
    const { page } = await e2e.open({ colorScheme: 'light' })
    await openSignedIn(page, e2e.server, account, '/settings')
    await page.getByRole('heading', { name: 'Settings' }).waitFor()
    const side = page.getByRole('complementary')
    const wide = (await side.boundingBox())!.width

    await page.getByLabel('Theme').selectOption({ label: 'Dark' })
    for (const name of ['Compact sidebar', 'Email notifications', 'Push notifications', 'Weekly summary']) {
      await page.getByRole('switch', { name }).click()
    }
    await page.getByLabel('Language').selectOption({ label: 'Español' })
    await page.getByRole('button', { name: 'Save changes' }).click()
    await expect
      .poll(() => stored(page))
      .toEqual({ theme: 'dark', compactSidebar: true, emailNotifications: false, pushNotifications: true, weeklySummary: false, language: 'es' })
    // The compact side menu shows only icons; its links keep their names.
    await expect.poll(async () => (await side.boundingBox())!.width).toBeLessThan(wide / 2)
    await side.getByRole('link', { name: 'Panel' }).first().waitFor()

    await page.getByRole('button', { name: /predeterminad/i }).click()
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
    await toast(page, 'Settings reset to defaults').waitFor()
    expect(await stored(page)).toEqual(DEFAULTS)
    expect(await page.getByLabel('Theme').inputValue()).toBe('system')
    expect(await page.getByLabel('Language').inputValue()).toBe('en')
    const switches = Object.fromEntries(
      await Promise.all(
        ['Compact sidebar', 'Email notifications', 'Push notifications', 'Weekly summary'].map(
          async (name) => [name, await page.getByRole('switch', { name }).getAttribute('aria-checked')] as const,
        ),
      ),
    )
    expect(switches).toEqual({ 'Compact sidebar': 'false', 'Email notifications': 'true', 'Push notifications': 'false', 'Weekly summary': 'true' })
    expect(await rootLooks(page)).toMatchObject({ dark: false, colorScheme: 'light', lang: 'en' })
    await expect.poll(async () => (await side.boundingBox())!.width).toBe(wide)
  })
})
