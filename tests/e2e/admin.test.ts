import type { Locator, Page, Request } from 'playwright-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { type Account, GOOD_PASSWORD, signInThroughApi, uniqueEmail } from './support/accounts'
import { type AppPage, accessibleDescription, openSignedIn, signInThroughPage, toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { linkTo } from '../support/mailbox'

/**
 * The staff areas: the admin dashboard's figures, user management
 * (search, filters, the edit dialog sending only what changed, unavailable actions that say why,
 * deactivating then deleting), the activity logs and My Activity (search, filter, paging), and
 * hostile names shown as text everywhere.
 */
const e2e = browserTests()

async function asAdmin(target: string, options: { width?: number } = {}): Promise<AppPage> {
  const app = await e2e.open(options.width ? { viewport: { width: options.width, height: 800 } } : {})
  await openSignedIn(app.page, e2e.server, e2e.server.admin, target)
  return app
}

// ---------------------------------------------------------------------------------------------
// Admin dashboard

/** The dashboard's four cards and its role distribution, by label. */
async function figures(page: Page): Promise<Record<string, number>> {
  const result: Record<string, number> = {}
  for (const label of ['Total Users', 'Active Users', 'Inactive Users', 'Administrators']) {
    const value = page.getByRole('heading', { name: label, exact: true }).locator('xpath=following-sibling::p[1]')
    result[label] = Number(await value.innerText())
  }
  const terms = await page.getByRole('term').allTextContents()
  const counts = await page.getByRole('definition').allTextContents()
  terms.forEach((term, index) => (result[term] = Number(counts[index])))
  return result
}

describe('admin dashboard', () => {
  test("an admin sees the dashboard's figures move after users are created and suspended", async () => {
    const { page } = await asAdmin('/admin')
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor()
    await page.getByRole('heading', { name: 'Total Users' }).waitFor()
    const before = await figures(page)
    expect(Object.keys(before)).toEqual(['Total Users', 'Active Users', 'Inactive Users', 'Administrators', 'Admins', 'Developers', 'Moderators', 'Clients'])

    const client = await e2e.accounts.create()
    await e2e.accounts.create({ role: 'DEVELOPER' })
    const refresh = page.getByRole('button', { name: 'Refresh' })
    await refresh.click()
    await expect
      .poll(() => figures(page))
      .toEqual({
        ...before,
        'Total Users': before['Total Users']! + 2,
        'Active Users': before['Active Users']! + 2,
        Clients: before.Clients! + 1,
        Developers: before.Developers! + 1,
      })

    await e2e.accounts.update(client, { status: 'SUSPENDED' })
    await refresh.click()
    await expect
      .poll(() => figures(page))
      .toEqual({
        ...before,
        'Total Users': before['Total Users']! + 2,
        'Active Users': before['Active Users']! + 1,
        'Inactive Users': before['Inactive Users']! + 1,
        Clients: before.Clients! + 1,
        Developers: before.Developers! + 1,
      })

    // The five newest entries, and a way to all of them.
    const recent = page.getByRole('list', { name: 'Recent Activity' }).getByRole('listitem')
    expect(await recent.count()).toBe(5)
    await recent.filter({ hasText: `Updated user ${client.name}` }).waitFor()
    await page.getByRole('link', { name: 'View All Activities' }).click()
    await page.waitForURL('**/admin/activity-logs')
    await page.getByRole('heading', { name: 'Activity Logs' }).waitFor()
  })

  test('a dashboard that cannot load says so and loads again on Retry', async () => {
    const app = await asAdmin('/dashboard')
    const { page } = app
    app.expectFailedRequests(500)
    await page.getByRole('heading', { name: /^Welcome back/ }).waitFor()
    await page.route('**/api/admin/stats', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ success: false, message: 'Internal server error' }) }),
    )
    await page.getByRole('complementary').getByRole('link', { name: 'Admin Dashboard' }).click()
    const failure = page.getByRole('alert').filter({ hasText: 'Error Loading Dashboard' })
    await failure.waitFor()
    await failure.getByText('Failed to load dashboard data. Please try again.').waitFor()
    await page.unroute('**/api/admin/stats')
    await failure.getByRole('button', { name: 'Retry' }).click()
    await page.getByRole('heading', { name: 'Total Users' }).waitFor()
  })
})

// ---------------------------------------------------------------------------------------------
// User management

/** The names in the users table, in order (none when the table is not shown). */
async function listedUsers(page: Page): Promise<string[]> {
  return page
    .getByRole('table')
    .getByRole('rowgroup')
    .last()
    .getByRole('row')
    .evaluateAll((rows) => rows.map((row) => row.querySelector('td p')?.textContent ?? ''))
}

async function search(page: Page, text: string): Promise<void> {
  await page.getByLabel('Search users').fill(text)
}

/** Opens a user's actions menu and returns it. */
async function actionsOf(page: Page, name: string): Promise<Locator> {
  await page.getByRole('button', { name: `Actions for ${name}`, exact: true }).click()
  const menu = page.getByRole('menu')
  await menu.waitFor()
  return menu
}

/** The accessible name (aria-label, or the label of a field) of what has keyboard focus. */
function focusedName(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const focused = document.activeElement as HTMLElement | null
    if (!focused || focused === document.body) return null
    return focused.getAttribute('aria-label') ?? (focused as HTMLInputElement).labels?.[0]?.textContent ?? focused.tagName
  })
}

/** Calls that change users, as "METHOD path body". */
function userWrites(page: Page): Request[] {
  const writes: Request[] = []
  page.on('request', (request) => {
    if (['PUT', 'DELETE'].includes(request.method()) && new URL(request.url()).pathname.startsWith('/api/admin/users/')) writes.push(request)
  })
  return writes
}

async function saveEdit(page: Page, writes: Request[]): Promise<unknown> {
  const count = writes.length
  const [request] = await Promise.all([
    page.waitForRequest((candidate) => candidate.method() === 'PUT' && candidate.url().includes('/api/admin/users/')),
    page.getByRole('dialog', { name: 'Edit User' }).getByRole('button', { name: 'Save Changes' }).click(),
  ])
  await toast(page, 'User updated successfully').waitFor()
  await page.getByRole('dialog', { name: 'Edit User' }).waitFor({ state: 'detached' })
  expect(writes.length).toBe(count + 1)
  return request.postDataJSON()
}

describe('user management', () => {
  test('an admin finds users by search, role and status, and the title counts them', async () => {
    const tag = `Zephyr${Date.now().toString(36)}`
    const client = await e2e.accounts.create({ name: `${tag} Client` })
    await e2e.accounts.create({ name: `${tag} Developer`, role: 'DEVELOPER' })
    await e2e.accounts.create({ name: `${tag} Moderator`, role: 'MODERATOR', status: 'SUSPENDED' })
    const { page } = await asAdmin('/admin/users')
    await page.getByRole('heading', { name: /^User Management \(\d+\)$/ }).waitFor()

    await search(page, tag.toLowerCase())
    await expect.poll(async () => (await listedUsers(page)).sort()).toEqual([`${tag} Client`, `${tag} Developer`, `${tag} Moderator`])
    await page.getByRole('heading', { name: 'User Management (3)' }).waitFor()

    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Developer' })
    await expect.poll(() => listedUsers(page)).toEqual([`${tag} Developer`])
    await page.getByRole('heading', { name: 'User Management (1)' }).waitFor()
    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'All roles' })
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Suspended' })
    await expect.poll(() => listedUsers(page)).toEqual([`${tag} Moderator`])
    const row = page.getByRole('row').filter({ hasText: `${tag} Moderator` })
    await row.getByText('Suspended', { exact: true }).waitFor()
    await row.getByText('Moderator', { exact: true }).waitFor()
    await row.getByText('Verified', { exact: true }).waitFor()
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'All statuses' })

    // By e-mail, whatever the case.
    await search(page, client.email.toUpperCase())
    await expect.poll(() => listedUsers(page)).toEqual([client.name])

    await search(page, `${tag}-nobody`)
    await page.getByText('No users found').waitFor()
    await page.getByRole('heading', { name: 'User Management (0)' }).waitFor()
  })

  test('an admin changes a role, then a status, then a name: each time only the changed field is sent', async () => {
    const user = await e2e.accounts.create({ phone: '+1 202 555 0147' })
    const { page } = await asAdmin('/admin/users')
    const writes = userWrites(page)
    await search(page, user.email)
    await expect.poll(() => listedUsers(page)).toEqual([user.name])

    await (await actionsOf(page, user.name)).getByRole('menuitem', { name: 'Edit' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit User' })
    await dialog.waitFor()
    expect(await accessibleDescription(dialog)).toContain(user.name)
    expect(await dialog.getByLabel('Name').inputValue()).toBe(user.name)
    expect(await dialog.getByLabel('Email').inputValue()).toBe(user.email)
    expect(await dialog.getByLabel('Phone').inputValue()).toBe('+1 202 555 0147')
    expect(await dialog.getByLabel('Role').inputValue()).toBe('CLIENT')
    expect(await dialog.getByLabel('Status').inputValue()).toBe('ACTIVE')

    // Nothing changed: the dialog simply closes.
    await dialog.getByRole('button', { name: 'Save Changes' }).click()
    await dialog.waitFor({ state: 'detached' })
    await (await actionsOf(page, user.name)).getByRole('menuitem', { name: 'Edit' }).click()
    await dialog.getByLabel('Name').fill('Someone Else')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(writes).toHaveLength(0)
    // Keyboard focus is back on the button that opened the menu.
    await expect.poll(() => focusedName(page)).toBe(`Actions for ${user.name}`)

    await (await actionsOf(page, user.name)).getByRole('menuitem', { name: 'Edit' }).click()
    expect(await dialog.getByLabel('Name').inputValue()).toBe(user.name)
    await dialog.getByLabel('Role').selectOption({ label: 'Moderator' })
    expect(await saveEdit(page, writes)).toEqual({ role: 'MODERATOR' })
    await page.getByRole('row').filter({ hasText: user.email }).getByText('Moderator', { exact: true }).waitFor()

    await (await actionsOf(page, user.name)).getByRole('menuitem', { name: 'Edit' }).click()
    await dialog.getByLabel('Status').selectOption({ label: 'Suspended' })
    expect(await saveEdit(page, writes)).toEqual({ status: 'SUSPENDED' })
    await page.getByRole('row').filter({ hasText: user.email }).getByText('Suspended', { exact: true }).waitFor()

    await (await actionsOf(page, user.name)).getByRole('menuitem', { name: 'Edit' }).click()
    await dialog.getByLabel('Name').fill('Renamed By Admin')
    expect(await saveEdit(page, writes)).toEqual({ name: 'Renamed By Admin' })
    await expect.poll(() => listedUsers(page)).toEqual(['Renamed By Admin'])
    user.name = 'Renamed By Admin'
  })

  test('unavailable actions stay reachable by keyboard and say why', async () => {
    const otherAdmin = await e2e.accounts.create({ role: 'ADMIN' })
    const active = await e2e.accounts.create()
    const me = await e2e.accounts.findUser(e2e.server.admin.email)
    const { page } = await asAdmin('/admin/users')

    /** Opens the actions menu by keyboard and reads each item: disabled or not, and why. */
    const actionsByKeyboard = async (account: { name: string; email: string }) => {
      await search(page, account.email)
      await expect.poll(() => listedUsers(page)).toEqual([account.name])
      await page.getByRole('button', { name: `Actions for ${account.name}`, exact: true }).focus()
      await page.keyboard.press('Enter')
      const menu = page.getByRole('menu')
      await menu.waitFor()
      const items: Array<{ name: string; disabled: boolean; why: string }> = []
      for (const name of ['Edit', 'Send password reset link', 'Sign out everywhere', 'Reset two-factor and passkeys', 'Delete']) {
        const item = menu.getByRole('menuitem', { name })
        await expect.poll(() => item.evaluate((element) => element === document.activeElement)).toBe(true)
        items.push({ name, disabled: (await item.getAttribute('aria-disabled')) === 'true', why: await accessibleDescription(item) })
        // With keyboard focus on it, an unavailable action shows its reason as a tooltip.
        if (items.at(-1)!.disabled)
          await page
            .getByRole('tooltip')
            .filter({ hasText: items.at(-1)!.why })
            .waitFor()
        // Choosing an unavailable action does nothing.
        if (items.at(-1)!.disabled) {
          await page.keyboard.press('Enter')
          expect(await page.getByRole('dialog').count()).toBe(0)
          await menu.waitFor()
        }
        await page.keyboard.press('ArrowDown')
      }
      await page.keyboard.press('Escape')
      await menu.waitFor({ state: 'detached' })
      return items
    }

    expect(await actionsByKeyboard(me)).toEqual([
      { name: 'Edit', disabled: true, why: 'Admins cannot edit their own account to prevent accidental privilege loss' },
      // The actions on an account's security follow the edit rule.
      { name: 'Send password reset link', disabled: true, why: 'Admins cannot edit their own account to prevent accidental privilege loss' },
      { name: 'Sign out everywhere', disabled: true, why: 'Admins cannot edit their own account to prevent accidental privilege loss' },
      { name: 'Reset two-factor and passkeys', disabled: true, why: 'Admins cannot edit their own account to prevent accidental privilege loss' },
      { name: 'Delete', disabled: true, why: 'You cannot delete your own account' },
    ])
    expect(await actionsByKeyboard(otherAdmin)).toEqual([
      { name: 'Edit', disabled: false, why: '' },
      { name: 'Send password reset link', disabled: false, why: '' },
      { name: 'Sign out everywhere', disabled: false, why: '' },
      { name: 'Reset two-factor and passkeys', disabled: false, why: '' },
      { name: 'Delete', disabled: true, why: 'Admin users cannot be deleted' },
    ])
    expect(await actionsByKeyboard(active)).toEqual([
      { name: 'Edit', disabled: false, why: '' },
      { name: 'Send password reset link', disabled: false, why: '' },
      { name: 'Sign out everywhere', disabled: false, why: '' },
      { name: 'Reset two-factor and passkeys', disabled: false, why: '' },
      { name: 'Delete', disabled: true, why: 'User must be inactive before deletion' },
    ])
    // The reasons are on screen too, not only for screen readers: a tooltip while the pointer is
    // on the unavailable action, gone when it moves on.
    await search(page, active.email)
    await expect.poll(() => listedUsers(page)).toEqual([active.name])
    const menu = await actionsOf(page, active.name)
    const tooltip = page.getByRole('tooltip').filter({ hasText: 'User must be inactive before deletion' })
    expect(await tooltip.isVisible()).toBe(false)
    await menu.getByRole('menuitem', { name: 'Delete' }).hover()
    await tooltip.waitFor()
    await menu.getByRole('menuitem', { name: 'Edit' }).hover()
    await tooltip.waitFor({ state: 'hidden' })
  })

  test('an admin deactivates a user, then deletes them through Confirm User Deletion; their entries stay, as an unknown user', async () => {
    const user = await e2e.accounts.create()
    await signInThroughApi(e2e.server, user.email, user.password)
    const { page } = await asAdmin('/admin/users')
    const writes = userWrites(page)
    await page.getByRole('heading', { name: /^User Management \(\d+\)$/ }).waitFor()
    const total = Number((await page.getByRole('heading', { name: /^User Management/ }).innerText()).match(/\((\d+)\)/)![1])

    await search(page, user.email)
    await expect.poll(() => listedUsers(page)).toEqual([user.name])
    await (await actionsOf(page, user.name)).getByRole('menuitem', { name: 'Edit' }).click()
    await page.getByRole('dialog', { name: 'Edit User' }).getByLabel('Status').selectOption({ label: 'Inactive' })
    expect(await saveEdit(page, writes)).toEqual({ status: 'INACTIVE' })
    await page.getByRole('row').filter({ hasText: user.email }).getByText('Inactive', { exact: true }).waitFor()

    const confirm = page.getByRole('dialog', { name: 'Confirm User Deletion' })
    await (await actionsOf(page, user.name)).getByRole('menuitem', { name: 'Delete' }).click()
    await confirm.waitFor()
    expect(await accessibleDescription(confirm)).toBe(`Are you sure you want to delete ${user.name} (${user.email})? This action cannot be undone.`)
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await confirm.waitFor({ state: 'detached' })
    expect(writes.filter((request) => request.method() === 'DELETE')).toHaveLength(0)

    await (await actionsOf(page, user.name)).getByRole('menuitem', { name: 'Delete' }).click()
    const [request] = await Promise.all([
      page.waitForRequest((candidate) => candidate.method() === 'DELETE'),
      confirm.getByRole('button', { name: 'Delete User' }).click(),
    ])
    expect(new URL(request.url()).pathname).toBe(`/api/admin/users/${user.id}`)
    await toast(page, 'User deleted successfully').waitFor()
    await page.getByText('No users found').waitFor()
    // Their row is gone, and focus with it: it stays in the list's area, not on the page's body.
    await expect.poll(() => focusedName(page)).toBe('Search users')
    await search(page, '')
    await page.getByRole('heading', { name: `User Management (${total - 1})` }).waitFor()

    await page.getByRole('complementary').getByRole('link', { name: 'Activity Logs' }).click()
    await page.getByLabel('Search activities').fill(user.email)
    const entries = page.getByRole('list', { name: 'Activity entries' }).getByRole('listitem')
    await entries.filter({ hasText: `Deleted user ${user.name} (${user.email})` }).waitFor()
    await entries.filter({ hasText: 'Logged in' }).getByText('Unknown User').waitFor()
  })
})

// ---------------------------------------------------------------------------------------------
// Activity lists

describe('activity lists', () => {
  let busy: Account
  beforeAll(async () => {
    // A developer with more than a page (20) of entries of their own: 24 sign-ins, registered, verified, role changed.
    busy = await e2e.accounts.create({ role: 'DEVELOPER' })
    for (let i = 0; i < 24; i++) await signInThroughApi(e2e.server, busy.email, busy.password)
  })

  const pageOf = (page: Page) => page.getByRole('navigation', { name: 'Pagination' })
  const entries = (page: Page) => page.getByRole('list', { name: 'Activity entries' }).getByRole('listitem')

  /** Walks to page 2 and back, and checks a change of search or filter starts again at page 1. */
  async function pagesAndFilters(page: Page, otherSearch: string) {
    const pager = pageOf(page)
    await pager.getByText('Page 1 of 2').waitFor()
    expect(await entries(page).count()).toBe(20)
    expect(await pager.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true)
    await pager.getByRole('button', { name: 'Next' }).click()
    await pager.getByText('Page 2 of 2').waitFor()
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true)
    await pager.getByRole('button', { name: 'Previous' }).click()
    await pager.getByText('Page 1 of 2').waitFor()

    // A new filter starts at page 1.
    await pager.getByRole('button', { name: 'Next' }).click()
    await pager.getByText('Page 2 of 2').waitFor()
    await page.getByLabel('Activity type').selectOption({ label: 'Login' })
    await pager.getByText('Page 1 of 2').waitFor()
    await expect.poll(() => entries(page).filter({ hasNotText: 'Logged in' }).count()).toBe(0)
    expect(await entries(page).count()).toBe(20)

    // So does a new search.
    await pager.getByRole('button', { name: 'Next' }).click()
    await pager.getByText('Page 2 of 2').waitFor()
    await page.getByLabel('Search activities').fill(otherSearch)
    await pager.getByText('Page 1 of 2').waitFor()

    await page.getByLabel('Activity type').selectOption({ label: 'Registration' })
    await pager.getByText('Page 1 of 1').waitFor()
    const registered = entries(page)
    expect(await registered.count()).toBe(1)
    await registered.getByText('Registered', { exact: true }).first().waitFor()

    await page.getByLabel('Activity type').selectOption({ label: 'Deletions' })
    await page.getByText('No activities found').waitFor()
    await page.getByText('Try adjusting your filters').waitFor()
  }

  test("activity logs: an admin searches a user's entries, pages through them and filters them", async () => {
    const { page } = await asAdmin('/admin/activity-logs')
    await page.getByRole('heading', { name: 'Activity Logs' }).waitFor()
    expect((await page.getByLabel('Activity type').locator('option').allInnerTexts()).map((text) => text.trim())).toEqual([
      'All activities',
      'Login',
      'Registration',
      'Updates',
      'Deletions',
      'Email Verification',
      'Password Reset',
      'Logout',
      'Security',
      'Applications',
    ])
    await page.getByLabel('Search activities').fill(busy.email)

    // One entry, with all its parts.
    const login = entries(page).filter({ hasText: 'Logged in' }).first()
    await login.waitFor()
    await login.getByText('Logged', { exact: true }).waitFor()
    await login.getByText(busy.name, { exact: true }).waitFor()
    await login.getByText('Developer', { exact: true }).waitFor()
    await login.getByText(busy.email, { exact: true }).waitFor()
    await login.getByText(/^IP address: /).waitFor()
    await login.getByText('Just now').waitFor()

    await pagesAndFilters(page, busy.name)
  })

  test('my activity: a developer pages through their own entries, searches and filters them, and retries after a failure', async () => {
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(500)
    await openSignedIn(page, e2e.server, busy, '/my-activity')
    await page.getByRole('heading', { name: 'My Activity' }).waitFor()
    await page.getByLabel('Search activities').fill('logged')
    await pageOf(page)
      .getByText(/^Page 1 of \d+$/)
      .waitFor()
    await page.getByLabel('Search activities').fill('')
    await pagesAndFilters(page, 'example.com')

    await page.route('**/api/activity?**', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ success: false, message: 'Internal server error' }) }),
    )
    await page.getByLabel('Activity type').selectOption({ label: 'Logout' })
    const failure = page.getByRole('alert').filter({ hasText: 'Failed to load your activity logs. Please try again.' })
    await failure.waitFor()
    await page.unroute('**/api/activity?**')
    await failure.getByRole('button', { name: 'Retry' }).click()
    await page.getByText('No activities found').waitFor()
  })
})

// ---------------------------------------------------------------------------------------------
// Hostile names

const HOSTILE = '<img src=x onerror=alert(1)>'

describe('hostile names', () => {
  test('a user named like markup is shown as text on the profile, in the top bar, in the admin table and in the activity logs', async () => {
    const dialogs: string[] = []
    const email = uniqueEmail('hostile')
    const visitor = await e2e.open()
    visitor.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    const { page } = visitor
    const injected = () => page.locator('img[src="x"], script:not([src])').count()

    await page.goto('/register')
    await page.getByLabel('Full Name').fill(HOSTILE)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password', { exact: true }).fill(GOOD_PASSWORD)
    await page.getByLabel('Confirm Password').fill(GOOD_PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.waitForURL('**/verify-email?**')
    const mail = await e2e.server.mail.next(email, 'Verify your email address - Accounts')
    await page.goto(linkTo(mail, '/verify-email').href)
    await page.waitForURL('**/login', { timeout: 15_000 })
    await signInThroughPage(page, { email, password: GOOD_PASSWORD })
    await page.getByRole('heading', { name: `Welcome back, ${HOSTILE}!` }).waitFor()
    await page.getByRole('button', { name: `Account menu for ${HOSTILE}` }).click()
    await page.getByRole('menu').getByText(HOSTILE, { exact: true }).waitFor()
    await page.keyboard.press('Escape')
    await page.getByRole('complementary').getByRole('link', { name: 'Profile' }).click()
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor()
    expect(await page.getByLabel('Full Name').inputValue()).toBe(HOSTILE)
    await page.getByText(HOSTILE, { exact: true }).first().waitFor()
    expect(await injected()).toBe(0)

    // An admin renames another user to the same text, and looks at both.
    const renamed = await e2e.accounts.create()
    const admin = await asAdmin('/admin/users')
    admin.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    await search(admin.page, renamed.email)
    await expect.poll(() => listedUsers(admin.page)).toEqual([renamed.name])
    await (await actionsOf(admin.page, renamed.name)).getByRole('menuitem', { name: 'Edit' }).click()
    await admin.page.getByRole('dialog', { name: 'Edit User' }).getByLabel('Name').fill(HOSTILE)
    await admin.page.getByRole('dialog', { name: 'Edit User' }).getByRole('button', { name: 'Save Changes' }).click()
    await toast(admin.page, 'User updated successfully').waitFor()
    renamed.name = HOSTILE
    // An entry whose own text carries the name.
    await e2e.accounts.update(renamed, { role: 'MODERATOR' })

    await search(admin.page, HOSTILE)
    await expect.poll(() => listedUsers(admin.page)).toEqual([HOSTILE, HOSTILE])
    expect(await admin.page.getByRole('button', { name: `Actions for ${HOSTILE}`, exact: true }).count()).toBe(2)

    await admin.page.goto('/admin/activity-logs')
    await admin.page.getByLabel('Search activities').fill(HOSTILE)
    const entries = admin.page.getByRole('list', { name: 'Activity entries' }).getByRole('listitem')
    await entries
      .filter({ hasText: `Changed role of ${HOSTILE} (${renamed.email})` })
      .getByText(HOSTILE, { exact: true })
      .waitFor()
    await entries.getByText(HOSTILE, { exact: true }).first().waitFor()

    await admin.page.goto('/admin')
    await admin.page.getByRole('list', { name: 'Recent Activity' }).getByText(HOSTILE, { exact: true }).first().waitFor()
    expect(await admin.page.locator('img[src="x"], script:not([src])').count()).toBe(0)

    await page.reload()
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor()
    expect(await injected()).toBe(0)
    expect(dialogs).toEqual([])
  })
})
