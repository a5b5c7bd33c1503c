import { describe, expect, test } from 'vitest'
import type { User } from '~shared/schemas/user'
import { uniqueEmail } from './support/accounts'
import { openSignedIn, signInThroughPage, toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { linkTo } from '../support/mailbox'

/**
 * An admin's work on people: inviting someone, who joins from the e-mailed link and lands signed
 * in; and the audit that names the admin in the logs, on the dashboard and in the target's own
 * activity.
 */
const e2e = browserTests()

const adminName = async () => (await e2e.accounts.asAdmin<User>('GET', '/auth/me')).body.data.name

describe('inviting a person', () => {
  test('an admin invites, the person joins from the e-mailed link and lands signed in; the link then is dead', async () => {
    const email = uniqueEmail('invitee')
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, e2e.server.admin, '/admin/users')
    await page.getByRole('button', { name: 'Invite user' }).click()
    const dialog = page.getByRole('dialog', { name: 'Invite User' })
    await dialog.getByLabel('Name').fill('Grace Hopper')
    await dialog.getByLabel('Email').fill(email)
    await dialog.getByLabel('Role').selectOption('DEVELOPER')
    await dialog.getByRole('button', { name: 'Send invitation' }).click()
    await toast(page, `Invitation sent to ${email}`).waitFor()
    await dialog.waitFor({ state: 'detached' })

    // The person has not joined: the list says so, and offers to send the invitation again.
    await page.getByLabel('Search users').fill(email)
    await page.getByRole('heading', { name: 'User Management (1)' }).waitFor()
    await page.getByRole('button', { name: 'Actions for Grace Hopper', exact: true }).click()
    await page.getByRole('menuitem', { name: 'Resend invitation' }).waitFor()
    await page.keyboard.press('Escape')

    const mail = await e2e.server.mail.next(email, 'You are invited - Accounts')
    const link = linkTo(mail, '/accept-invite')
    expect(link.origin).toBe(e2e.server.url)

    const invited = await e2e.open()
    invited.expectFailedRequests(400)
    await invited.page.goto(link.href)
    await invited.page.getByRole('heading', { name: 'Join Accounts' }).waitFor()
    await invited.page.getByLabel('Password', { exact: true }).fill('Copper-Lantern-58?')
    await invited.page.getByLabel('Confirm Password').fill('Copper-Lantern-58!')
    await invited.page.getByRole('button', { name: 'Set password and sign in' }).click()
    await invited.page.getByText("Passwords don't match").waitFor()
    await invited.page.getByLabel('Confirm Password').fill('Copper-Lantern-58?')
    await invited.page.getByRole('button', { name: 'Set password and sign in' }).click()
    await invited.page.waitForURL('**/dashboard')
    await invited.page.getByText('Welcome back, Grace Hopper!').waitFor()
    await toast(invited.page, 'Welcome! Your account is ready.').waitFor()

    // Used once: the same link now says only that it is invalid.
    const again = await e2e.open()
    again.expectFailedRequests(400)
    await again.page.goto(link.href)
    await again.page.getByLabel('Password', { exact: true }).fill('Copper-Lantern-58?')
    await again.page.getByLabel('Confirm Password').fill('Copper-Lantern-58?')
    await again.page.getByRole('button', { name: 'Set password and sign in' }).click()
    await again.page.getByRole('heading', { name: 'Invalid Invitation Link' }).waitFor()
    expect(await again.page.getByText(email).count()).toBe(0)

    // The chosen password signs in from the sign-in page too.
    const later = await e2e.open()
    await later.page.goto('/login')
    await signInThroughPage(later.page, { email, password: 'Copper-Lantern-58?' })
    await later.page.waitForURL('**/dashboard')
  })
})

describe('the audit names the admin', () => {
  test("a role change's entry says who did it and what changed: in the logs, on the dashboard and in the target's own activity", async () => {
    const target = await e2e.accounts.create({ name: 'Rolf Rolechange' })
    const name = await adminName()
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, e2e.server.admin, '/admin/users')
    await page.getByLabel('Search users').fill(target.email)
    await page.getByRole('heading', { name: 'User Management (1)' }).waitFor()
    await page.getByRole('button', { name: 'Actions for Rolf Rolechange', exact: true }).click()
    await page.getByRole('menuitem', { name: 'Edit' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit User' })
    await dialog.getByLabel('Role').selectOption('MODERATOR')
    await dialog.getByRole('button', { name: 'Save Changes' }).click()
    await toast(page, 'User updated successfully').waitFor()

    await page.goto('/admin/activity-logs')
    await page.getByLabel('Search activities').fill('Rolf Rolechange')
    const entry = page
      .getByRole('list', { name: 'Activity entries' })
      .getByRole('listitem')
      .filter({ hasText: `Changed role of Rolf Rolechange (${target.email})` })
    await entry.waitFor()
    expect(await entry.innerText()).toContain(`by ${name}`)
    expect(await entry.innerText()).toMatch(/Role: Client\s*→\s*(to\s*)?Moderator/)

    await page.goto('/admin')
    const recent = page.getByRole('list', { name: 'Recent Activity' }).getByRole('listitem').filter({ hasText: 'Changed role of Rolf Rolechange' })
    expect(await recent.innerText()).toContain(`by ${name}`)

    // The target, a moderator now, reads it in their own activity.
    const own = await e2e.open()
    await openSignedIn(own.page, e2e.server, target, '/my-activity')
    const mine = own.page.getByRole('list', { name: 'Activity entries' }).getByRole('listitem').filter({ hasText: 'Changed role of Rolf Rolechange' })
    expect(await mine.innerText()).toContain(`by ${name}`)
  })

  test('an admin signs a user out everywhere from the row menu: their open page goes to sign-in', async () => {
    const target = await e2e.accounts.create({ name: 'Sam Signedin' })
    const victim = await e2e.open()
    await openSignedIn(victim.page, e2e.server, target, '/profile')
    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, e2e.server.admin, '/admin/users')
    await page.getByLabel('Search users').fill(target.email)
    await page.getByRole('heading', { name: 'User Management (1)' }).waitFor()
    await page.getByRole('button', { name: 'Actions for Sam Signedin', exact: true }).click()
    await page.getByRole('menuitem', { name: 'Sign out everywhere' }).click()
    const dialog = page.getByRole('dialog', { name: 'Sign Out Everywhere' })
    await dialog.getByRole('button', { name: 'Sign out everywhere' }).click()
    await toast(page, 'Sam Signedin was signed out everywhere').waitFor()

    victim.expectFailedRequests(401)
    await victim.page.reload()
    await victim.page.waitForURL('**/login**')
  })
})
