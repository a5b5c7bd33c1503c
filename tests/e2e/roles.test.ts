import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import type { Role } from '~shared/constants'
import { horizontalOverflow } from './support/accessibility'
import { accessibleDescription, linkTexts, openSignedIn, signInThroughPage, storedSession, toast } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * What each role sees and may open: the side menu's items, each
 * allowed page with its title, "Access Denied" for the others, the guard's order for an account
 * suspended while signed in, the small-screen menu sheet, and the sample-data pages of the
 * developer and the moderator.
 */
const e2e = browserTests()

interface PageOfTheApp {
  path: string
  link: string
  heading: string | RegExp
}

const PAGES: PageOfTheApp[] = [
  { path: '/dashboard', link: 'Dashboard', heading: /^Welcome back, / },
  { path: '/profile', link: 'Profile', heading: 'Profile' },
  { path: '/my-activity', link: 'My Activity', heading: 'My Activity' },
  { path: '/settings', link: 'Settings', heading: 'Settings' },
  { path: '/admin', link: 'Admin Dashboard', heading: 'Admin Dashboard' },
  { path: '/admin/users', link: 'User Management', heading: /^User Management \(\d+\)$/ },
  { path: '/admin/activity-logs', link: 'Activity Logs', heading: 'Activity Logs' },
  { path: '/admin/applications', link: 'Applications', heading: 'Applications' },
  { path: '/admin/sign-in-methods', link: 'Sign-in methods', heading: 'Sign-in methods' },
  { path: '/developer', link: 'Developer Dashboard', heading: 'Developer Dashboard' },
  { path: '/moderator', link: 'Moderator Dashboard', heading: 'Moderator Dashboard' },
]

/** Who sees what, as the side menu lists it (sections in order: Main, Administration, Developer, Moderator). */
const MENUS: Record<Role, { sections: string[]; items: string[]; badge: string; adminAccess: string }> = {
  CLIENT: { sections: ['Main'], items: ['Dashboard', 'Profile', 'Settings'], badge: 'Client', adminAccess: 'Denied' },
  DEVELOPER: {
    sections: ['Main', 'Administration', 'Developer'],
    items: ['Dashboard', 'Profile', 'My Activity', 'Settings', 'Activity Logs', 'Developer Dashboard'],
    badge: 'Developer',
    adminAccess: 'Denied',
  },
  MODERATOR: {
    sections: ['Main', 'Administration', 'Moderator'],
    items: ['Dashboard', 'Profile', 'My Activity', 'Settings', 'Activity Logs', 'Moderator Dashboard'],
    badge: 'Moderator',
    adminAccess: 'Denied',
  },
  ADMIN: {
    sections: ['Main', 'Administration'],
    items: ['Dashboard', 'Profile', 'My Activity', 'Settings', 'Admin Dashboard', 'User Management', 'Activity Logs', 'Applications', 'Sign-in methods', 'Webhooks'],
    badge: 'Admin',
    adminAccess: 'Allowed',
  },
}

async function heading(page: Page, name: string | RegExp) {
  await page.getByRole('heading', { level: 1, name, exact: typeof name === 'string' }).waitFor()
}

describe.each(['CLIENT', 'DEVELOPER', 'MODERATOR', 'ADMIN'] as const)('a %s', (role) => {
  test('sees exactly their menu, opens each of their pages with its title, and is turned away from the others', async () => {
    const menu = MENUS[role]
    const account = await e2e.accounts.create({ role })
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, account, '/dashboard')
    await heading(page, `Welcome back, ${account.name}!`)

    const banner = page.getByRole('banner')
    await banner.getByText(menu.badge, { exact: true }).waitFor()
    const side = page.getByRole('complementary')
    expect(await linkTexts(side.getByRole('navigation', { name: 'Side menu' }))).toEqual(menu.items)
    expect(await side.getByRole('heading').allTextContents()).toEqual(menu.sections)

    // The avatar's dropdown: who is signed in, and Profile, Settings, Debug, Log out.
    await banner.getByRole('button', { name: `Account menu for ${account.name}` }).click()
    const dropdown = page.getByRole('menu')
    await dropdown.getByText(account.email).waitFor()
    expect((await dropdown.getByRole('menuitem').allInnerTexts()).map((text) => text.trim())).toEqual(['Profile', 'Settings', 'Debug', 'Log out'])
    await dropdown.getByRole('menuitem', { name: 'Debug' }).click()
    await page.waitForURL('**/debug')
    await heading(page, 'Auth Debug')
    const analysis = page.getByRole('definition')
    await analysis.filter({ hasText: account.email }).waitFor()
    expect(await analysis.filter({ hasText: /^(Allowed|Denied)$/ }).allInnerTexts()).toEqual(['Allowed', menu.adminAccess])

    for (const target of PAGES.filter((candidate) => menu.items.includes(candidate.link))) {
      await side.getByRole('link', { name: target.link, exact: true }).click()
      await page.waitForURL((url) => url.pathname === target.path)
      await heading(page, target.heading)
      expect(await side.getByRole('link', { name: target.link, exact: true }).getAttribute('aria-current')).toBe('page')
    }

    for (const target of PAGES.filter((candidate) => !menu.items.includes(candidate.link))) {
      await page.goto(target.path)
      await page.waitForURL('**/unauthorized')
      await heading(page, 'Access Denied')
    }
  })
})

describe('the guard', () => {
  test('a moderator suspended while signed in is signed out at their next step and told why; signing in again says the account is suspended', async () => {
    const account = await e2e.accounts.create({ role: 'MODERATOR' })
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(401, 403)
    await openSignedIn(page, e2e.server, account, '/moderator')
    await heading(page, 'Moderator Dashboard')

    await e2e.accounts.update(account, { status: 'SUSPENDED' })
    await page.getByRole('complementary').getByRole('link', { name: 'My Activity' }).click()
    const suspendedPage = (url: URL) =>
      url.pathname === '/account-status' && url.searchParams.get('status') === 'suspended' && url.searchParams.get('email') === account.email
    await page.waitForURL(suspendedPage)
    await heading(page, 'Account Suspended')
    expect((await storedSession(page)).accessToken).toBeNull()

    await page.goto('/login')
    await signInThroughPage(page, account)
    await page.waitForURL(suspendedPage)
    await heading(page, 'Account Suspended')
  })

  test('when the server says a signed-in account is suspended, role checks still come first: admin pages are denied, own pages explain the status', async () => {
    const account = await e2e.accounts.create({ role: 'MODERATOR' })
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(403)
    // The answer the server gives a live session whose account was suspended.
    await page.route('**/api/auth/me', (route) =>
      route.fulfill({
        status: 403,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, message: 'Account is suspended', code: 'ACCOUNT_SUSPENDED' }),
      }),
    )
    await openSignedIn(page, e2e.server, account, '/admin/users')
    await page.waitForURL('**/unauthorized')
    await heading(page, 'Access Denied')
    for (const path of ['/moderator', '/dashboard']) {
      await page.goto(path)
      await page.waitForURL(
        (url) => url.pathname === '/account-status' && url.searchParams.get('status') === 'suspended' && url.searchParams.get('email') === account.email,
      )
      await heading(page, 'Account Suspended')
    }
    // The blocked account's owner can still reach the sign-in form.
    await page.goto('/login')
    await heading(page, 'Sign in')
  })

  test('the root address and unknown addresses lead a signed-in user to the dashboard', async () => {
    const account = await e2e.accounts.create()
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, account, '/')
    await page.waitForURL('**/dashboard')
    await heading(page, `Welcome back, ${account.name}!`)
    await page.goto('/there/is/no/such/page')
    await page.waitForURL('**/dashboard')
    await page.getByRole('banner').getByRole('link', { name: 'Accounts home' }).waitFor()
  })
})

describe('on a phone', () => {
  test('the menu button opens the Menu sheet; Escape closes it, and its links navigate', async () => {
    const account = await e2e.accounts.create({ role: 'DEVELOPER' })
    const { page } = await e2e.open({ viewport: { width: 360, height: 740 } })
    await openSignedIn(page, e2e.server, account, '/dashboard')
    await heading(page, `Welcome back, ${account.name}!`)
    expect(await page.getByRole('complementary').isVisible()).toBe(false)
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0)

    const opener = page.getByRole('button', { name: 'Open menu' })
    await opener.click()
    const sheet = page.getByRole('dialog', { name: 'Menu' })
    await sheet.waitFor()
    expect(await accessibleDescription(sheet)).toBe('Quick navigation')
    expect(await linkTexts(sheet)).toEqual(MENUS.DEVELOPER.items)
    await page.keyboard.press('Escape')
    await sheet.waitFor({ state: 'detached' })
    // The dialog hands focus back in a task after it is gone: on a busy machine, a moment later.
    await expect.poll(() => opener.evaluate((element) => element === document.activeElement)).toBe(true)

    // Keyboard only: open it, move to a link and follow it.
    await page.keyboard.press('Enter')
    await sheet.waitFor()
    await sheet.getByRole('link', { name: 'My Activity' }).focus()
    await page.keyboard.press('Enter')
    await page.waitForURL('**/my-activity')
    await sheet.waitFor({ state: 'detached' })
    await heading(page, 'My Activity')

    await opener.click()
    await sheet.getByRole('link', { name: 'Developer Dashboard' }).click()
    await page.waitForURL('**/developer')
    await sheet.waitFor({ state: 'detached' })
    await heading(page, 'Developer Dashboard')
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0)
  })
})

/** The body rows of the page's table, as the texts of their first cells. */
async function firstCells(page: Page): Promise<string[]> {
  const rows = page.getByRole('table').getByRole('rowgroup').last().getByRole('row')
  return await rows.evaluateAll((elements) => elements.map((row) => row.querySelector('td')?.textContent?.trim() ?? ''))
}

/** Counts the API calls a page makes from now on. */
function apiCalls(page: Page): () => string[] {
  const calls: string[] = []
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/api/')) calls.push(`${request.method()} ${request.url()}`)
  })
  return () => calls
}

describe('sample-data pages', () => {
  test('a developer searches the projects, filters them by status and changes a status, all without calling the server', async () => {
    const account = await e2e.accounts.create({ role: 'DEVELOPER' })
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, account, '/developer')
    await heading(page, 'Developer Dashboard')
    await page.waitForLoadState('networkidle')
    const calls = apiCalls(page)
    expect(await firstCells(page)).toHaveLength(5)

    await page.getByLabel('Search projects').fill('billing')
    await expect.poll(() => firstCells(page)).toEqual(['Billing API v2'])
    await page.getByLabel('Search projects').fill('')
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Completed' })
    await expect.poll(() => firstCells(page)).toEqual(['Mobile app accessibility audit'])
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'All statuses' })

    await page.getByRole('button', { name: 'Change status of Billing API v2' }).click()
    const choices = page.getByRole('menu')
    expect((await choices.getByRole('menuitemradio').allInnerTexts()).map((text) => text.trim())).toEqual(['Pending', 'In Progress', 'Completed'])
    expect(await choices.getByRole('menuitemradio', { name: 'Pending' }).getAttribute('aria-checked')).toBe('true')
    await choices.getByRole('menuitemradio', { name: 'Completed' }).click()
    await toast(page, 'Billing API v2 is now Completed').waitFor()
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Completed' })
    await expect.poll(() => firstCells(page)).toEqual(['Billing API v2', 'Mobile app accessibility audit'])

    await page.getByLabel('Search projects').fill('no such project')
    await page.getByText('No projects found').waitFor()
    expect(calls()).toEqual([])
  })

  test('a moderator searches comments by client and text, filters them and changes a status that is not kept', async () => {
    const account = await e2e.accounts.create({ role: 'MODERATOR' })
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, account, '/moderator')
    await heading(page, 'Moderator Dashboard')
    await page.waitForLoadState('networkidle')
    const calls = apiCalls(page)

    const search = page.getByLabel('Search comments')
    await search.fill('globex')
    await expect.poll(() => firstCells(page)).toEqual(['Globex'])
    await search.fill('INVOICES')
    await expect.poll(() => firstCells(page)).toEqual(['Initech'])
    await search.fill('')
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Rejected' })
    await expect.poll(() => firstCells(page)).toEqual(['Umbrella Ltd'])
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'All statuses' })

    await page.getByRole('button', { name: 'Change status of the comment by Globex' }).click()
    expect((await page.getByRole('menu').getByRole('menuitemradio').allInnerTexts()).map((text) => text.trim())).toEqual(['Approved', 'Pending', 'Rejected'])
    await page.getByRole('menu').getByRole('menuitemradio', { name: 'Approved' }).click()
    await toast(page, 'Comment by Globex is now Approved').waitFor()
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Approved' })
    await expect.poll(() => firstCells(page)).toEqual(['Acme Corp', 'Globex', 'Stark Industries'])
    expect(calls()).toEqual([])

    await page.reload()
    await heading(page, 'Moderator Dashboard')
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Approved' })
    await expect.poll(() => firstCells(page)).toEqual(['Acme Corp', 'Stark Industries'])
  })
})
