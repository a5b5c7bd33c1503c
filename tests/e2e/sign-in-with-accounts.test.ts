import type { Page } from 'playwright-core'
import { afterAll, describe, expect, test } from 'vitest'
import { type SampleApp, samplePort, startSampleApp } from '../support/sample-app'
import { openSignedIn, signInThroughPage, toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { appCode, turnOnTwoFactor } from './support/two-factor'

/**
 * Sign in with Accounts, in Chromium: an administrator registers the docs' sample app
 * (docs/examples/sample-app.mjs, run as its own process) on the Applications page and copies its
 * secret and the issuer shown beside it; people sign in to it through the product's own sign-in and consent pages (with a password,
 * then with two-factor), sign out of it through the product's confirmation, and remove its access
 * under Profile, Security, Connected apps.
 */
const e2e = browserTests()
let sample: SampleApp | undefined
let clientId = ''

afterAll(async () => {
  await sample?.stop()
})

const APP = 'Sample App'

/** The sample app started with the credentials the administrator copied (the first test). */
function running(): SampleApp {
  if (!sample) throw new Error('the sample app is not running (the first test failed?)')
  return sample
}

/** From the sample app's "Sign in with Accounts" link to the product's sign-in page naming the app. */
async function startSignIn(page: Page): Promise<void> {
  await page.goto(`${running().url}/`)
  await page.getByText('You are signed out.').waitFor()
  await page.getByRole('link', { name: 'Sign in with Accounts' }).click()
  await page.waitForURL(`${e2e.server.url}/login?interaction=*`)
  await page.getByText(`Sign in to continue to ${APP}`).waitFor()
}

/** The consent page, then back at the sample app, signed in. */
async function allowAndLand(page: Page, name: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: `${APP} wants to:` }).waitFor()
  const list = page.getByRole('list', { name: `What ${APP} will be able to do` })
  for (const item of ['See your name and profile picture', 'See your e-mail address', 'See your role', 'Stay signed in (keep access when you are away)']) {
    await list.getByText(item).waitFor()
  }
  await page.getByRole('button', { name: 'Allow' }).click()
  await page.waitForURL(`${running().url}/`)
  await page.getByText(`Signed in as ${name}`).waitFor()
}

/** A claim as the sample app shows it (JSON). */
const claim = async (page: Page, name: string) =>
  JSON.parse(
    await page
      .getByRole('row', { name: new RegExp(`^${name} `) })
      .getByRole('cell')
      .innerText(),
  )

describe('Sign in with Accounts', () => {
  test('an administrator registers the sample app and copies its secret; a person signs in to it with a password, allows it, and signs out of it', async () => {
    const admin = await e2e.open()
    await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.server.url })
    const port = await samplePort()
    const base = `http://localhost:${port}`
    await openSignedIn(admin.page, e2e.server, e2e.server.admin, '/admin/applications')
    await admin.page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor()
    await admin.page.getByRole('button', { name: 'New application' }).click()
    const form = admin.page.getByRole('dialog', { name: 'New Application' })
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill(APP)
    await form.getByRole('textbox', { name: /^Redirect URIs/ }).fill(`${base}/callback`)
    await form.getByRole('textbox', { name: /^Post-logout redirect URIs/ }).fill(`${base}/`)
    await form.getByRole('textbox', { name: /^Back-channel logout URI/ }).fill(`${base}/backchannel-logout`)
    await form.getByRole('button', { name: 'Create application' }).click()

    const shown = admin.page.getByRole('dialog', { name: 'Client Credentials' })
    await shown.getByText('Copy the client secret now: it will not be shown again. If it is lost, replace it.').waitFor()
    const id = await shown.getByRole('textbox', { name: 'Client ID' }).inputValue()
    expect(id).toMatch(/^app_[\w-]{22}$/)
    clientId = id
    await shown.getByRole('button', { name: 'Copy Client secret' }).click()
    // The toast sits outside the dialog, which hides the rest of the page from assistive technology while open.
    await admin.page.getByText('Client secret copied').waitFor()
    const secret = await admin.page.evaluate(() => navigator.clipboard.readText())
    expect(secret).toBe(await shown.getByRole('textbox', { name: 'Client secret' }).inputValue())
    expect(secret).toMatch(/^[\w-]{43}$/)
    // Beside them, where the app finds the provider: its issuer (APP_URL/oidc), copied as the secret was.
    await shown.getByRole('button', { name: 'Copy Issuer' }).click()
    await admin.page.getByText('Issuer copied').waitFor()
    const issuer = await admin.page.evaluate(() => navigator.clipboard.readText())
    expect(issuer).toBe(`${e2e.server.url}/oidc`)
    expect(await shown.getByRole('textbox', { name: 'Discovery URL' }).inputValue()).toBe(`${issuer}/.well-known/openid-configuration`)
    await shown.getByRole('button', { name: 'Done' }).click()

    // The application's page gives the same to whoever connects it later (never the secret).
    await admin.page.getByRole('link', { name: APP }).click()
    await admin.page.getByRole('heading', { level: 1, name: APP }).waitFor()
    expect(await admin.page.getByRole('textbox', { name: 'Client ID' }).inputValue()).toBe(id)
    expect(await admin.page.getByRole('textbox', { name: 'Issuer' }).inputValue()).toBe(issuer)
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>
    for (const [label, field] of [
      ['Token endpoint', 'token_endpoint'],
      ['End session endpoint', 'end_session_endpoint'],
    ] as const) {
      expect(await admin.page.getByRole('textbox', { name: label }).inputValue()).toBe(discovery[field])
    }
    expect(await admin.page.content()).not.toContain(secret)

    sample = await startSampleApp({ ISSUER: issuer, CLIENT_ID: id, CLIENT_SECRET: secret, PORT: port })

    const account = await e2e.accounts.create({ name: 'Ada Lovelace', role: 'DEVELOPER' })
    const person = await e2e.open()
    await startSignIn(person.page)
    await signInThroughPage(person.page, account)
    await allowAndLand(person.page, 'Ada Lovelace')
    expect(await claim(person.page, 'email')).toBe(account.email)
    expect(await claim(person.page, 'roles')).toEqual(['DEVELOPER'])
    expect(await claim(person.page, 'amr')).toEqual(['pwd'])

    // Signing out of the app: the product asks, in its own look, then goes back to the app.
    await person.page.getByRole('link', { name: 'Sign out' }).click()
    await person.page.waitForURL(`${e2e.server.url}/oidc/session/end**`)
    await person.page.getByRole('heading', { level: 1, name: `Sign out of ${APP}?` }).waitFor()
    await person.page.getByText('You will also be signed out of Accounts in this browser.').waitFor()
    expect(await person.page.getByRole('link', { name: 'Stay signed in' }).getAttribute('href')).toBe('/dashboard')
    await person.page.getByRole('button', { name: 'Sign out' }).click()
    await person.page.waitForURL(`${base}/`)
    await person.page.getByText('You are signed out.').waitFor()

    // Signed out of the product too: the app's next sign-in asks for the password again (the web
    // app finds its stored session refused: the 401s are part of the story).
    person.expectFailedRequests(401)
    await person.page.getByRole('link', { name: 'Sign in with Accounts' }).click()
    await person.page.waitForURL(`${e2e.server.url}/login?interaction=*`)
    await person.page.getByLabel('Password', { exact: true }).waitFor()
  })

  test('a person with two-factor on signs in to the app with a code, then removes its access under Connected apps, and the app loses it', async () => {
    running()
    const account = await e2e.accounts.create({ name: 'Grace Hopper' })
    const { secret } = await turnOnTwoFactor(e2e.server, account)
    const app = await e2e.open()
    const { page } = app
    await startSignIn(page)
    await signInThroughPage(page, account)
    // The step after the one that turned two-factor on (a used code is refused).
    await page.getByLabel('Code from the app').fill(appCode(secret, 30))
    await page.getByRole('button', { name: 'Verify' }).click()
    await allowAndLand(page, 'Grace Hopper')
    expect(await claim(page, 'amr')).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']))

    // The person, still signed in to the product in this browser, removes the app's access.
    await page.goto(`${e2e.server.url}/profile`)
    await page.getByRole('tab', { name: 'Security' }).click()
    const list = page.getByRole('list', { name: 'Your connected apps' })
    const row = list.getByRole('listitem').filter({ hasText: APP })
    await row
      .getByRole('list', { name: `What ${APP} may see` })
      .getByText('See your e-mail address')
      .waitFor()
    await row.getByRole('button', { name: `Remove access of ${APP}` }).click()
    const dialog = page.getByRole('dialog', { name: 'Remove this app’s access?' })
    await dialog.getByText(`${APP} will be signed out of your account and will have to ask for your permission again next time.`).waitFor()
    await dialog.getByRole('button', { name: 'Remove access' }).click()
    await toast(page, `Access of ${APP} removed`).waitFor()
    await page.getByText('You have not allowed any app yet.').waitFor()

    // The app's tokens are dead: its next UserInfo and refresh fail, and it signs the person out.
    await page.goto(`${running().url}/`)
    await page.getByText('You are signed out: your access ended.').waitFor()
    expect(running().output()).toMatch(new RegExp(`Access of ${account.email.replace(/[.+]/g, '\\$&')} ended \\(invalid_grant\\): signed out here`))
  })

  test('signed out at the product’s own sign-out address (no way back to the app): "You have signed out", and the app hears it by back-channel logout', async () => {
    running()
    const account = await e2e.accounts.create({ name: 'Alan Turing' })
    const app = await e2e.open()
    const { page } = app
    await startSignIn(page)
    await signInThroughPage(page, account)
    await allowAndLand(page, 'Alan Turing')
    const sid = await claim(page, 'sid')

    await page.goto(`${e2e.server.url}/oidc/session/end?client_id=${clientId}`)
    await page.getByRole('heading', { level: 1, name: `Sign out of ${APP}?` }).waitFor()
    // The whole provider session ends (and the product session it came from: the web app's stored
    // session is refused, the 401s are part of the story); the page still names the app.
    app.expectFailedRequests(401)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { level: 1, name: 'You have signed out' }).waitFor()
    await page.getByText(`You have signed out of ${APP} and of Accounts in this browser.`).waitFor()
    expect(await page.getByRole('link', { name: 'Sign in again' }).getAttribute('href')).toBe('/login')

    await running().printed(new RegExp(`Back-channel logout for sid ${sid} \\(sub [\\w-]+\\): 1 session\\(s\\) ended`), 20_000)
    await page.goto(`${running().url}/`)
    await page.getByText('You are signed out.').waitFor()
  })
})
