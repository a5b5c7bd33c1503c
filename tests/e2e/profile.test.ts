import type { Page } from 'playwright-core'
import sharp from 'sharp'
import { describe, expect, test } from 'vitest'
import { openSignedIn, signInThroughPage, toast } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * The signed-in user's own account: editing the profile, the picture
 * (which the top bar then shows), and changing the password.
 */
const e2e = browserTests()

async function picture(format: 'png' | 'jpeg', colour: string): Promise<Buffer> {
  const image = sharp({ create: { width: 96, height: 96, channels: 3, background: colour } })
  return format === 'png' ? image.png().toBuffer() : image.jpeg().toBuffer()
}

/** Chooses a file through the Change Picture button's file dialog, as a person does. */
async function choosePicture(page: Page, file: { name: string; mimeType: string; buffer: Buffer }): Promise<void> {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Change Picture' }).click()])
  await chooser.setFiles(file)
}

/** The picture shown in the top bar's avatar, once it has loaded. */
async function topBarPicture(page: Page, name: string): Promise<string> {
  const image = page
    .getByRole('banner')
    .getByRole('button', { name: `Account menu for ${name}` })
    .locator('img')
  await image.waitFor()
  await page.waitForFunction((element) => element instanceof HTMLImageElement && element.complete && element.naturalWidth > 0, await image.elementHandle())
  return (await image.getAttribute('src')) ?? ''
}

async function completion(page: Page): Promise<string | null> {
  const bar = page.getByRole('progressbar', { name: 'Profile completion' })
  await bar.waitFor()
  return bar.getAttribute('aria-valuenow')
}

describe('profile', () => {
  test('a user edits their name and phone, and the top bar and dashboard show them', async () => {
    const account = await e2e.accounts.create()
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, account, '/dashboard')
    expect(await completion(page)).toBe('50')

    await page.getByRole('complementary').getByRole('link', { name: 'Profile' }).click()
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor()
    const email = page.getByLabel('Email')
    expect(await email.inputValue()).toBe(account.email)
    expect(await email.isDisabled()).toBe(true)
    await page.getByText('Email cannot be changed. Please contact an administrator if it needs to change.').waitFor()
    expect(await page.getByLabel('Account Created').isDisabled()).toBe(true)

    const name = page.getByLabel('Full Name')
    await name.fill('A')
    await page.getByRole('button', { name: 'Update Profile' }).click()
    await page.getByText('Name must be at least 2 characters').waitFor()
    await name.fill('A'.repeat(51))
    await page.getByText('Name must be less than 50 characters').waitFor()

    await name.fill('Ada Lovelace')
    await page.getByLabel('Phone').fill('+33 1 23 45 67 89')
    const [request] = await Promise.all([
      page.waitForRequest((candidate) => candidate.method() === 'PUT' && candidate.url().endsWith('/api/users/profile')),
      page.getByRole('button', { name: 'Update Profile' }).click(),
    ])
    expect(request.postDataJSON()).toEqual({ name: 'Ada Lovelace', phone: '+33 1 23 45 67 89' })
    await toast(page, 'Profile updated successfully').waitFor()
    await page.getByRole('button', { name: 'Account menu for Ada Lovelace' }).waitFor()

    await page.getByRole('complementary').getByRole('link', { name: 'Dashboard' }).click()
    await page.getByRole('heading', { name: 'Welcome back, Ada Lovelace!' }).waitFor()
    await page.getByText('+33 1 23 45 67 89').waitFor()
    expect(await completion(page)).toBe('75')

    await page.reload()
    await page.getByRole('heading', { name: 'Welcome back, Ada Lovelace!' }).waitFor()
  })

  test('a user uploads a PNG and then a JPEG picture, and the top bar shows each; wrong files are refused before sending', async () => {
    const account = await e2e.accounts.create({ name: 'Grace Brewster Hopper' })
    const { page } = await e2e.open()
    let uploads = 0
    page.on('request', (request) => {
      if (request.url().endsWith('/api/users/profile-picture')) uploads += 1
    })
    await openSignedIn(page, e2e.server, account, '/profile')
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor()
    // No picture yet: the initials.
    expect(await page.getByRole('img', { name: `Profile picture of ${account.name}` }).innerText()).toBe('GH')

    await choosePicture(page, { name: 'too-big.png', mimeType: 'image/png', buffer: Buffer.alloc(5 * 1024 * 1024 + 1) })
    await page.getByRole('alert').filter({ hasText: 'Image size must be less than 5MB' }).waitFor()
    await choosePicture(page, { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') })
    await page.getByRole('alert').filter({ hasText: 'Please select a valid image file' }).waitFor()
    expect(uploads).toBe(0)

    await choosePicture(page, { name: 'me.png', mimeType: 'image/png', buffer: await picture('png', '#1d4ed8') })
    await toast(page, 'Profile picture updated successfully').waitFor()
    expect(await page.getByRole('alert').count()).toBe(0)
    const png = await topBarPicture(page, account.name)
    expect(png).toMatch(/\/api\/users\/pictures\//)
    expect(await page.getByRole('img', { name: `Profile picture of ${account.name}` }).getAttribute('src')).toBe(png)

    await choosePicture(page, { name: 'me.jpg', mimeType: 'image/jpeg', buffer: await picture('jpeg', '#b91c1c') })
    await expect.poll(() => topBarPicture(page, account.name), { timeout: 15_000 }).not.toBe(png)
    expect(uploads).toBe(2)

    // The picture stays after a reload, and counts towards the profile's completion.
    await page.reload()
    expect(await topBarPicture(page, account.name)).not.toBe(png)
    await page.getByRole('complementary').getByRole('link', { name: 'Dashboard' }).click()
    expect(await completion(page)).toBe('75')
  })

  test('a user changes their password; the old one stops working and the new one works', async () => {
    const account = await e2e.accounts.create()
    const newPassword = 'Saffron-Meadow-27%'
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(400, 401)
    await openSignedIn(page, e2e.server, account, '/profile')
    await page.getByRole('tab', { name: 'Security' }).click()
    await page.getByRole('heading', { name: 'Change Password' }).waitFor()

    const current = page.getByLabel('Current Password')
    const fresh = page.getByLabel('New Password', { exact: true })
    const confirm = page.getByLabel('Confirm New Password')
    const submit = page.getByRole('button', { name: 'Change Password' })

    await submit.click()
    await page.getByText('Current password is required').waitFor()
    await current.fill(account.password)
    await fresh.fill('alllowercase1!')
    await confirm.fill('different')
    await submit.click()
    await page.getByText('Password must contain at least one uppercase letter, one lowercase letter, one number, and one special character').waitFor()
    await page.getByText("Passwords don't match").waitFor()

    await current.fill('Not-My-Password-1!')
    await fresh.fill(newPassword)
    await confirm.fill(newPassword)
    await submit.click()
    await page.getByText('Current password is incorrect').waitFor()

    await current.fill(account.password)
    await submit.click()
    await toast(page, 'Password changed successfully').waitFor()
    expect(await current.inputValue()).toBe('')
    const mail = await e2e.server.mail.next(account.email, 'Your password was changed - Accounts')
    expect(mail.text).toContain('The password of your account was just changed')

    // This session carries on.
    await page.reload()
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor()

    await page.getByRole('button', { name: `Account menu for ${account.name}` }).click()
    await page.getByRole('menuitem', { name: 'Log out' }).click()
    await page.waitForURL('**/login')
    await signInThroughPage(page, account)
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password. Please check your credentials and try again.' }).waitFor()
    await signInThroughPage(page, { email: account.email, password: newPassword })
    await page.waitForURL('**/dashboard')
  })
})
