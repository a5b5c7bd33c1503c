import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import * as client from 'openid-client'
import { describe, expect, test } from 'vitest'
import { callApi, signInThroughApi } from './support/accounts'
import { openSignedIn, signInThroughPage } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * Sign-in for command-line tools (contract section 11), in Chromium: `openid-client` is the tool,
 * polling the token endpoint while a person opens the address it printed (`APP_URL/device`),
 * checks the code, signs in (a signed-out person signs in first and comes back), sees the consent
 * page and allows, or denies. The grant then shows in Connected apps.
 */
const e2e = browserTests()
const EXIT_WITH_PARENT = fileURLToPath(new URL('../support/exit-with-parent.ts', import.meta.url))
const APP = 'Deploy CLI'

/** A public application with device sign-in, registered by the administrator; its client id. */
async function deviceApplication(): Promise<string> {
  const answer = await e2e.accounts.asAdmin<{ application: { id: string } }>('POST', '/admin/applications', { name: APP, type: 'public', deviceFlow: true })
  expect(answer.status).toBe(201)
  return answer.body.data.application.id
}

/** The command-line tool's view of the provider. */
function tool(clientId: string): Promise<client.Configuration> {
  return client.discovery(new URL(`${e2e.server.url}/oidc`), clientId, {}, client.None(), { execute: [client.allowInsecureRequests] })
}

describe('device sign-in', () => {
  test('a signed-out person opens the address the tool printed, checks the code, signs in, allows it; the tool gets its tokens', async () => {
    const person = await e2e.accounts.create({ name: 'Dora Device' })
    const config = await tool(await deviceApplication())
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile email' })
    const polling = client.pollDeviceAuthorizationGrant(config, started)

    const { page } = await e2e.open()
    await page.goto(started.verification_uri_complete!)
    await page.waitForURL(`${e2e.server.url}/oidc/device*`)
    await page.getByRole('heading', { level: 1, name: 'Sign in on a device' }).waitFor()
    expect(await page.getByRole('textbox', { name: 'Code' }).inputValue()).toBe(started.user_code)
    await page.getByRole('button', { name: 'Continue' }).click()

    await page.getByRole('heading', { level: 1, name: `Sign in to ${APP}?` }).waitFor()
    expect(await page.getByTestId('device-code').innerText()).toBe(started.user_code)
    await page.getByRole('button', { name: 'Continue' }).click()

    await page.waitForURL(`${e2e.server.url}/login?interaction=*`)
    await signInThroughPage(page, person)
    await page.getByRole('heading', { level: 1, name: `${APP} wants to:` }).waitFor()
    await page.getByRole('button', { name: 'Allow' }).click()
    await page.getByRole('heading', { level: 1, name: 'Your device is signed in' }).waitFor()

    const tokens = await polling
    expect(tokens.claims()).toMatchObject({ sub: person.id, name: 'Dora Device', email: person.email })
    const session = await signInThroughApi(e2e.server, person.email, person.password)
    const apps = await callApi<{ applications: { name: string }[] }>(e2e.server, 'GET', '/auth/applications', { session })
    expect(apps.body.data.applications.map((app) => app.name)).toEqual([APP])
  }, 90_000)

  test('a signed-in person denies on the consent page; the tool hears access_denied', async () => {
    const person = await e2e.accounts.create()
    const config = await tool(await deviceApplication())
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' })
    const refused = client.pollDeviceAuthorizationGrant(config, started).then(
      () => 'tokens',
      (error: { error?: string }) => error.error,
    )

    const { page } = await e2e.open()
    await openSignedIn(page, e2e.server, person, '/device')
    await page.getByRole('heading', { level: 1, name: 'Sign in on a device' }).waitFor()
    await page.getByRole('textbox', { name: 'Code' }).fill(started.user_code.toLowerCase().replace('-', ''))
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByRole('heading', { level: 1, name: `Sign in to ${APP}?` }).waitFor()
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByRole('heading', { level: 1, name: `${APP} wants to:` }).waitFor()
    await page.getByRole('button', { name: 'Deny' }).click()
    await page.getByRole('heading', { level: 1, name: 'Sign-in denied' }).waitFor()
    expect(await refused).toBe('access_denied')
  }, 90_000)

  test('the docs’ example tool (docs/examples/device-sign-in.mjs) signs a person in once they allow it in the browser', async () => {
    const person = await e2e.accounts.create({ name: 'Ada Example' })
    const clientId = await deviceApplication()
    const tool = spawn(process.execPath, ['--import', 'tsx', '--import', EXIT_WITH_PARENT, 'docs/examples/device-sign-in.mjs'], {
      env: { ...process.env, APP_URL: e2e.server.url, CLIENT_ID: clientId },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let output = ''
    tool.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    tool.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => tool.on('exit', (code) => resolve(code)))
    try {
      const until = async (pattern: RegExp) => {
        for (let i = 0; i < 300 && !pattern.test(output); i++) await new Promise((resolve) => setTimeout(resolve, 100))
        const found = pattern.exec(output)
        if (!found) throw new Error(`the tool never printed ${pattern}: ${output}`)
        return found
      }
      const [, address] = await until(/\(or open (\S+)\)/)
      const { page } = await e2e.open()
      await openSignedIn(page, e2e.server, person, new URL(address!).pathname + new URL(address!).search)
      await page.getByRole('heading', { level: 1, name: 'Sign in on a device' }).waitFor()
      await page.getByRole('button', { name: 'Continue' }).click()
      await page.getByRole('heading', { level: 1, name: `Sign in to ${APP}?` }).waitFor()
      await page.getByRole('button', { name: 'Continue' }).click()
      await page.getByRole('button', { name: 'Allow' }).click()
      await page.getByRole('heading', { level: 1, name: 'Your device is signed in' }).waitFor()
      await until(/Signed in as Ada Example/)
      expect(await exited).toBe(0)
    } finally {
      tool.kill('SIGKILL')
    }
  }, 90_000)

  test('a code that matches nothing: “Code expired or unknown”', async () => {
    const { page } = await e2e.open()
    await page.goto('/device')
    await page.getByRole('heading', { level: 1, name: 'Sign in on a device' }).waitFor()
    await page.getByRole('textbox', { name: 'Code' }).fill('BCDF-GHJK')
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByText('Code expired or unknown.').waitFor()
  }, 60_000)
})
