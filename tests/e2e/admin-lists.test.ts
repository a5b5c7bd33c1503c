import fs from 'node:fs/promises'
import { parse } from 'csv-parse/sync'
import { describe, expect, test } from 'vitest'
import { signInThroughApi } from './support/accounts'
import { type AppPage, openSignedIn } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * The admin lists at work in a browser: sorting User Management by last sign-in (and the view
 * kept in the address), exporting the filtered list as a CSV file whose rows are the table's, and
 * the activity logs narrowed by a date range.
 */
const e2e = browserTests()

async function asAdmin(target: string): Promise<AppPage> {
  const app = await e2e.open()
  await openSignedIn(app.page, e2e.server, e2e.server.admin, target)
  return app
}

/** The names in the users table, top to bottom. */
async function tableNames(app: AppPage): Promise<string[]> {
  return app.page.locator('[data-users-table] tbody tr td:first-child p.font-medium').allInnerTexts()
}

describe('user management at scale', () => {
  test('sorts by last sign-in, keeps the view in the address, and the back button undoes it', async () => {
    const tag = `Lastsign${Date.now().toString(36)}`
    const early = await e2e.accounts.create({ name: `${tag} Early` })
    const late = await e2e.accounts.create({ name: `${tag} Late` })
    await e2e.accounts.create({ name: `${tag} Never` })
    await signInThroughApi(e2e.server, early.email, early.password)
    await new Promise((resolve) => setTimeout(resolve, 20))
    await signInThroughApi(e2e.server, late.email, late.password)

    const app = await asAdmin(`/admin/users?search=${tag}`)
    const { page } = app
    await expect.poll(() => tableNames(app)).toEqual([`${tag} Never`, `${tag} Late`, `${tag} Early`])
    // Each header is named as its column (a screen reader reads every cell with it), its sort button too.
    for (const name of ['User', 'Role', 'Status', 'Email Verified', 'Created', 'Last sign-in', 'Actions']) {
      expect(await page.getByRole('columnheader', { name, exact: true }).count(), name).toBe(1)
    }
    await page.getByRole('button', { name: 'Last sign-in', exact: true }).click()
    await expect.poll(() => tableNames(app)).toEqual([`${tag} Late`, `${tag} Early`, `${tag} Never`])
    const header = page.getByRole('columnheader', { name: 'Last sign-in', exact: true })
    expect(await header.getAttribute('aria-sort')).toBe('descending')
    expect(new URL(page.url()).searchParams.get('sort')).toBe('lastSignInAt')
    const neverRow = page.locator('[data-users-table] tbody tr', { hasText: `${tag} Never` })
    expect(await neverRow.locator('[data-last-sign-in]').innerText()).toBe('Never')
    expect(
      await page
        .locator('[data-users-table] tbody tr', { hasText: `${tag} Late` })
        .locator('[data-last-sign-in]')
        .innerText(),
    ).toMatch(/Just now|minute/)

    await page.getByRole('button', { name: 'Last sign-in', exact: true }).click()
    await expect.poll(() => tableNames(app)).toEqual([`${tag} Never`, `${tag} Early`, `${tag} Late`])
    // A bookmark of this view opens it again.
    await page.reload()
    await expect.poll(() => tableNames(app)).toEqual([`${tag} Never`, `${tag} Early`, `${tag} Late`])
    expect(await page.getByRole('columnheader', { name: 'Last sign-in', exact: true }).getAttribute('aria-sort')).toBe('ascending')
    // Back: the descending sort, then the default order.
    await page.goBack()
    await expect.poll(() => tableNames(app)).toEqual([`${tag} Late`, `${tag} Early`, `${tag} Never`])
    await page.goBack()
    await expect.poll(() => tableNames(app)).toEqual([`${tag} Never`, `${tag} Late`, `${tag} Early`])
  })

  test('Export CSV downloads the filtered list, its rows those of the table', async () => {
    const tag = `Exporting${Date.now().toString(36)}`
    for (const name of [`${tag} Ärger, "Quoted"`, `${tag} 李小龍`, `=${tag} Formula`]) await e2e.accounts.create({ name })
    await e2e.accounts.create({ name: `${tag} Developer`, role: 'DEVELOPER' })
    const app = await asAdmin(`/admin/users?search=${tag}&role=CLIENT&sort=name&order=asc`)
    const { page } = app
    await expect.poll(async () => (await tableNames(app)).length).toBe(3)
    const shown = await tableNames(app)

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()])
    expect(download.suggestedFilename()).toMatch(/^users-\d{4}-\d{2}-\d{2}\.csv$/)
    const bytes = await fs.readFile((await download.path())!)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const [header, ...rows] = parse(bytes, { bom: true }) as string[][]
    expect(header).toEqual(['id', 'name', 'email', 'phone', 'role', 'status', 'emailVerified', 'createdAt', 'updatedAt', 'lastSignInAt'])
    // The formula guard's quote is the only difference from what the table shows.
    expect(rows.map((row) => row[1]!.replace(/^'(?=[=+\-@])/, ''))).toEqual(shown)
    expect(rows.every((row) => row[4] === 'CLIENT')).toBe(true)
    expect(rows.find((row) => row[1]!.includes('Formula'))![1]).toBe(`'=${tag} Formula`)
  })
})

describe('activity logs', () => {
  test('a date range narrows the entries, and lives in the address', async () => {
    const account = await e2e.accounts.create()
    const app = await asAdmin('/admin/activity-logs')
    const { page } = app
    const entries = page.getByRole('list', { name: 'Activity entries' }).getByRole('listitem')
    await entries.first().waitFor()
    const today = new Date().toISOString().slice(0, 10)
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)

    await page.getByLabel('Search activities').fill(account.name)
    await expect.poll(() => new URL(page.url()).searchParams.get('search')).toBe(account.name)
    await expect.poll(async () => (await entries.allInnerTexts()).every((text) => text.includes(account.name))).toBe(true)
    await page.getByLabel('From', { exact: true }).fill(tomorrow)
    await page.getByText('No activities found').waitFor()
    expect(new URL(page.url()).searchParams.get('from')).toBe(tomorrow)
    await page.getByLabel('From', { exact: true }).fill(today)
    await page.getByLabel('To', { exact: true }).fill(today)
    await expect.poll(() => entries.count()).toBeGreaterThan(0)
    for (const text of await entries.allInnerTexts()) expect(text).toContain(account.name)
    await page.goBack()
    await page.goBack()
    await page.getByText('No activities found').waitFor()
  })
})
