import { describe, expect, test } from 'vitest'
import { callApi, uniqueEmail } from './support/accounts'
import { openSignedIn, signInThroughPage, toast } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * What a person notices first and every day: the language before signing in (and the e-mails in
 * it), a reason when a session ends, truthful hints, Access Denied inside the app, and toasts that
 * leave the page's heading in sight on a phone.
 */
const e2e = browserTests()

describe('first impressions', () => {
  test('French chosen on the sign-in page translates it, stays chosen, and the e-mail of a registration is French', async () => {
    const { page } = await e2e.open()
    await page.goto('/login')
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor()
    await page.getByRole('banner').getByText('Accounts').waitFor()
    await page.getByRole('combobox', { name: 'Language' }).selectOption('fr')
    await page.getByRole('heading', { name: 'Connexion', level: 1 }).waitFor()
    expect(await page.locator('html').getAttribute('lang')).toBe('fr')
    await page.getByLabel('E-mail').waitFor()

    await page.reload()
    await page.getByRole('heading', { name: 'Connexion', level: 1 }).waitFor()
    expect(await page.getByRole('combobox', { name: 'Langue' }).inputValue()).toBe('fr')

    await page.getByRole('link', { name: "S'inscrire" }).click()
    await page.getByRole('heading', { name: 'Créer un compte', level: 1 }).waitFor()
    const email = uniqueEmail('francais')
    await page.getByLabel('Nom complet').fill('Marie Curie')
    await page.getByLabel('E-mail').fill(email)
    await page.getByLabel('Mot de passe', { exact: true }).fill('Radium-Polonium-1898!')
    await page.getByLabel('Confirmer le mot de passe').fill('Radium-Polonium-1898!')
    await page.getByRole('button', { name: 'Créer le compte' }).click()
    const mail = await e2e.server.mail.next(email)
    expect(mail.subject).toBe('Vérifiez votre adresse e-mail - Accounts')
    expect(mail.text).toContain('Bonjour Marie Curie,')
  })

  test('a German browser gets German public pages before anything is chosen', async () => {
    const { page } = await e2e.open({ locale: 'de-DE' })
    await page.goto('/login')
    await page.getByRole('heading', { name: 'Anmelden', level: 1 }).waitFor()
    expect(await page.getByRole('combobox', { name: 'Sprache' }).inputValue()).toBe('de')
    await page.goto('/register')
    await page.getByRole('heading', { name: 'Konto erstellen', level: 1 }).waitFor()
    await page.goto('/forgot-password')
    await page.getByRole('heading', { name: 'Passwort vergessen?', level: 1 }).waitFor()
    await page.goto('/account-status?status=suspended')
    await page.getByRole('heading', { name: 'Konto gesperrt', level: 1 }).waitFor()
  })

  test('a session ended by signing out everywhere brings the sign-in page with the reason', async () => {
    const account = await e2e.accounts.create()
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(401)
    const session = await openSignedIn(page, e2e.server, account, '/dashboard')
    await page.getByRole('heading', { name: `Welcome back, ${account.name}!` }).waitFor()

    // Another device signs out everywhere.
    expect((await callApi(e2e.server, 'POST', '/auth/logout-all', { session })).status).toBe(200)
    await page.getByRole('complementary').getByRole('link', { name: 'Profile' }).click()
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor()
    await page.getByText('Your session has ended. Please sign in again.').waitFor()
    expect(new URL(page.url()).pathname).toBe('/login')

    await signInThroughPage(page, account)
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor()
  })

  test('a suspension meanwhile goes to the account-status page', async () => {
    const account = await e2e.accounts.create()
    const app = await e2e.open()
    app.expectFailedRequests(401)
    const { page } = app
    await openSignedIn(page, e2e.server, account, '/dashboard')
    await page.getByRole('heading', { name: `Welcome back, ${account.name}!` }).waitFor()
    await e2e.accounts.update(account, { status: 'SUSPENDED' })
    await page.getByRole('complementary').getByRole('link', { name: 'Profile' }).click()
    await page.getByRole('heading', { name: 'Account Suspended', level: 1 }).waitFor()
    expect(new URL(page.url()).searchParams.get('email')).toBe(account.email)
  })

  test('at 75% with a phone, the hint asks only for a picture', async () => {
    const account = await e2e.accounts.create({ phone: '+33 1 23 45 67 89' })
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, account, '/dashboard')
    expect(await page.getByRole('progressbar', { name: 'Profile completion' }).getAttribute('aria-valuenow')).toBe('75')
    await page.getByText('Add a profile picture to complete your profile.').waitFor()
    expect(await page.getByText(/Add a phone number/).count()).toBe(0)
  })

  test('Access Denied keeps the top bar and the side menu for a signed-in user', async () => {
    const account = await e2e.accounts.create()
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, account, '/admin/users')
    await page.getByRole('heading', { name: 'Access Denied', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/unauthorized')
    await page.getByRole('complementary').getByRole('navigation', { name: 'Side menu' }).waitFor()
    await page.getByRole('banner').getByRole('link', { name: 'Accounts home' }).waitFor()
    await page.getByRole('complementary').getByRole('link', { name: 'Dashboard' }).click()
    await page.getByRole('heading', { name: `Welcome back, ${account.name}!` }).waitFor()
  })

  test('on a phone, the toast after signing in leaves the heading of the page in sight', async () => {
    const account = await e2e.accounts.create()
    const { page } = await e2e.open({ viewport: { width: 360, height: 740 } })
    await page.goto('/login')
    await signInThroughPage(page, account)
    const heading = page.getByRole('heading', { name: `Welcome back, ${account.name}!` })
    await heading.waitFor()
    const shown = toast(page, 'Login successful!')
    await shown.waitFor()
    const [headingBox, toastBox] = [await heading.boundingBox(), await shown.boundingBox()]
    expect(headingBox && toastBox).toBeTruthy()
    const overlap = toastBox!.y < headingBox!.y + headingBox!.height && headingBox!.y < toastBox!.y + toastBox!.height
    expect(overlap, `toast ${JSON.stringify(toastBox)} over heading ${JSON.stringify(headingBox)}`).toBe(false)
  })
})
