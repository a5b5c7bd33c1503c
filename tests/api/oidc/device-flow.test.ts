import * as client from 'openid-client'
import { describe, expect, it } from 'vitest'
import { RULES } from '~server/rate-limit/rules'
import { type TestApp, useTestApp } from '../../support/test-app'
import { protocolError, registerApplication, relyingParty, type TestApplication, TestBrowser } from '../../support/oidc'

/**
 * Sign-in for command-line tools (RFC 8628, contract section 11): `openid-client` is the tool, the
 * small browser of tests/support/oidc.ts is the person's browser on `/device` (the page the web
 * app shows at the engine's `/oidc/device`, as calls). The answer's `interval`, `slow_down`,
 * `expired_token`, `access_denied`, a used device code, and wrong user codes throttled.
 */

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code'

async function deviceApplication(test: TestApp, input: { type?: 'confidential' | 'public'; redirectUris?: string[] } = {}): Promise<TestApplication> {
  const application = await registerApplication(test.ctx, { name: 'Deploy CLI', type: input.type ?? 'public', redirectUris: input.redirectUris ?? [] })
  await test.ctx.db.updateTable('oidc_applications').set({ device_flow: true }).where('id', '=', application.id).execute()
  return application
}

/** A <meta> tag's content in the page the server answered with. */
const meta = (html: string, name: string): string | undefined =>
  new RegExp(`<meta name="${name}" content="([^"]*)"`)
    .exec(html)?.[1]
    ?.replace(/&#(\d+);|&amp;|&quot;/g, (m, code) => (code ? String.fromCharCode(Number(code)) : m === '&amp;' ? '&' : '"'))

/** The person types the code on the device page and confirms it; the address the engine sends the browser on to. */
async function typeCode(browser: TestBrowser, userCode: string, options: { confirm?: 'yes' | 'abort' } = {}) {
  const form = await browser.request('GET', '/oidc/device')
  const xsrf = meta(form.body, 'oidc-device-xsrf') ?? ''
  const confirmPage = await browser.request('POST', '/oidc/device', { form: { xsrf, user_code: userCode } })
  if (meta(confirmPage.body, 'oidc-device') !== 'confirm') return { page: confirmPage }
  const again = meta(confirmPage.body, 'oidc-device-xsrf') ?? ''
  const decided = await browser.request('POST', '/oidc/device', {
    form: { xsrf: again, user_code: userCode, ...(options.confirm === 'abort' ? { abort: 'yes' } : { confirm: 'yes' }) },
  })
  return { page: decided, confirmPage }
}

/** Approves (or denies) the code as a signed-in person, through sign-in and consent; the device page's last answer. */
async function approve(test: TestApp, userCode: string, person: Awaited<ReturnType<TestApp['signIn']>>, consent: 'allow' | 'deny' = 'allow') {
  const browser = new TestBrowser(test)
  const { page } = await typeCode(browser, userCode)
  expect(page.statusCode).toBe(303)
  const at = await browser.follow(String(page.headers.location))
  expect(at.pathname).toBe('/login')
  // The sign-in and consent steps, as the web app takes them, until the engine answers with its device page.
  let next = at
  for (let i = 0; i < 10; i++) {
    if (next.pathname === '/login' || next.pathname === '/consent') {
      const step = next.pathname === '/login' ? 'login' : consent === 'deny' ? 'abort' : 'consent'
      const uid = next.searchParams.get('interaction')!
      const response = await browser.request('POST', `/api/oidc/interactions/${uid}/${step}`, { token: person.accessToken, csrf: person.csrfToken, body: {} })
      expect(response.statusCode).toBe(200)
      next = new URL(response.json().data.redirectTo, test.config.appUrl)
      continue
    }
    const hop = await browser.request('GET', next.toString())
    if (hop.statusCode < 300 || hop.statusCode >= 400) {
      expect(next.pathname).toMatch(/^\/oidc\/device\//)
      return hop
    }
    next = new URL(String(hop.headers.location), next)
  }
  throw new Error('the device page never came')
}

describe('device sign-in', () => {
  const test = useTestApp()

  it('answers the device authorization with an 8-letter code, the product’s /device page, 600 s and an interval of 5', async () => {
    const application = await deviceApplication(test)
    const config = await relyingParty(test, application)
    const answer = await client.initiateDeviceAuthorization(config, { scope: 'openid profile email' })
    expect(answer.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
    expect(answer.verification_uri).toBe(`${test.config.appUrl}/device`)
    expect(answer.verification_uri_complete).toBe(`${test.config.appUrl}/device?user_code=${answer.user_code}`)
    expect(answer.expires_in).toBe(600)
    expect(answer.interval).toBe(5)
  })

  it('lets an admin switch device sign-in on for a public app without redirect URIs, never for a service application', async () => {
    const admin = await test.signIn({ role: 'ADMIN' })
    const create = (body: unknown) => test.request('POST', '/api/admin/applications', { token: admin.accessToken, csrf: admin.csrfToken, body })
    const created = await create({ name: 'Deploy CLI', type: 'public', deviceFlow: true })
    expect(created.statusCode).toBe(201)
    expect(created.json().data.application).toMatchObject({ deviceFlow: true, redirectUris: [] })
    expect((await create({ name: 'No way in', type: 'public' })).statusCode).toBe(400)
    const service = await create({ name: 'Payroll Sync', type: 'service', scopes: ['users:read'], deviceFlow: true })
    expect(service.statusCode).toBe(400)
    expect(service.json().errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'deviceFlow' })]))
    const id = created.json().data.application.id
    const off = await test.request('PUT', `/api/admin/applications/${id}`, { token: admin.accessToken, csrf: admin.csrfToken, body: { deviceFlow: false } })
    expect(off.statusCode).toBe(400)
  })

  it('refuses the device grant to an application without device sign-in', async () => {
    const application = await registerApplication(test.ctx, { type: 'public' })
    const config = await relyingParty(test, application)
    // The engine refuses the grant type before anything else (`invalid_request` or `unauthorized_client`, by client kind).
    expect(['invalid_request', 'unauthorized_client']).toContain(await protocolError(client.initiateDeviceAuthorization(config, { scope: 'openid' })))
  })

  it('signs the tool in once the person approves on /device, and the grant shows in Connected apps; the used device code is refused', async () => {
    const application = await deviceApplication(test, { type: 'confidential', redirectUris: ['http://127.0.0.1:4000/callback'] })
    const config = await relyingParty(test, application)
    const person = await test.signIn({ name: 'Grace Hopper' })
    const answer = await client.initiateDeviceAuthorization(config, { scope: 'openid profile email' })
    const polling = client.pollDeviceAuthorizationGrant(config, answer)
    const done = await approve(test, answer.user_code, person)
    expect(meta(done.body, 'oidc-device')).toBe('done')
    expect(meta(done.body, 'oidc-app-name')).toBe('Deploy CLI')
    const tokens = await polling
    expect(tokens.claims()).toMatchObject({ sub: person.id, name: 'Grace Hopper', email: person.email })

    const apps = await test.request('GET', '/api/auth/applications', { token: person.accessToken })
    expect(apps.json().data.applications).toEqual([expect.objectContaining({ id: application.id, name: 'Deploy CLI' })])

    const reused = await test.request('POST', '/oidc/token', {
      headers: {
        host: new URL(test.config.appUrl).host,
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${application.id}:${application.secret}`).toString('base64')}`,
      },
      payload: new URLSearchParams({ grant_type: GRANT, device_code: answer.device_code }).toString(),
    })
    expect(reused.statusCode).toBe(400)
    expect(reused.json().error).toBe('invalid_grant')
  }, 30_000)

  it('tells the tool access_denied when the person denies', async () => {
    const application = await deviceApplication(test)
    const config = await relyingParty(test, application)
    const person = await test.signIn()
    const answer = await client.initiateDeviceAuthorization(config, { scope: 'openid' })
    const polling = protocolError(client.pollDeviceAuthorizationGrant(config, answer))
    const denied = await approve(test, answer.user_code, person, 'deny')
    expect(meta(denied.body, 'oidc-device')).toBe('denied')
    expect(await polling).toBe('access_denied')
  }, 30_000)

  it('answers slow_down to a poll sooner than the interval, and expired_token once the code has expired', async () => {
    const application = await deviceApplication(test)
    const config = await relyingParty(test, application)
    const answer = await client.initiateDeviceAuthorization(config, { scope: 'openid' })
    const poll = () =>
      test.request('POST', '/oidc/token', {
        headers: { host: new URL(test.config.appUrl).host, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: GRANT, device_code: answer.device_code, client_id: application.id }).toString(),
      })
    expect((await poll()).json().error).toBe('authorization_pending')
    expect((await poll()).json().error).toBe('slow_down')
    await test.ctx.db
      .updateTable('oidc_payloads')
      .set({ last_polled_at: new Date(Date.now() - 6000) })
      .where('id', '=', answer.device_code)
      .execute()
    expect((await poll()).json().error).toBe('authorization_pending')

    const row = await test.ctx.db.selectFrom('oidc_payloads').select('payload').where('id', '=', answer.device_code).executeTakeFirstOrThrow()
    const payload = { ...(typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload), exp: Math.floor(Date.now() / 1000) - 1 }
    await test.ctx.db
      .updateTable('oidc_payloads')
      .set({ payload: JSON.stringify(payload), expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', answer.device_code)
      .execute()
    expect((await poll()).json().error).toBe('expired_token')
  })

  it('shows “expired or unknown” for a code that matches nothing, and for an expired one', async () => {
    const browser = new TestBrowser(test)
    const { page } = await typeCode(browser, 'BCDF-GHJK')
    expect(meta(page.body, 'oidc-device')).toBe('input')
    expect(meta(page.body, 'oidc-device-error')).toBe('unknown')

    const application = await deviceApplication(test)
    const config = await relyingParty(test, application)
    const answer = await client.initiateDeviceAuthorization(config, { scope: 'openid' })
    const prefilled = await browser.request('GET', `/oidc/device?user_code=${answer.user_code}`)
    expect(meta(prefilled.body, 'oidc-device-code')).toBe(answer.user_code)
    await test.ctx.db
      .updateTable('oidc_payloads')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', answer.device_code)
      .execute()
    const row = await test.ctx.db.selectFrom('oidc_payloads').select('payload').where('id', '=', answer.device_code).executeTakeFirstOrThrow()
    const payload = { ...(typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload), exp: Math.floor(Date.now() / 1000) - 1 }
    await test.ctx.db
      .updateTable('oidc_payloads')
      .set({ payload: JSON.stringify(payload) })
      .where('id', '=', answer.device_code)
      .execute()
    const expired = await typeCode(browser, answer.user_code)
    expect(meta(expired.page.body, 'oidc-device-error')).toBe('unknown')
  })
})

describe('device sign-in: wrong user codes', () => {
  const test = useTestApp({ RATE_LIMIT: 'on' })

  it('throttles wrong codes per browser and per address: past 10, even the right code is not looked up', async () => {
    const application = await deviceApplication(test)
    const config = await relyingParty(test, application)
    const answer = await client.initiateDeviceAuthorization(config, { scope: 'openid' })
    const browser = new TestBrowser(test)
    for (let i = 0; i < RULES.deviceCodeByIp.max; i++) {
      const { page } = await typeCode(browser, 'BCDF-GHJK')
      expect(meta(page.body, 'oidc-device-error')).toBe('unknown')
    }
    const { page } = await typeCode(browser, answer.user_code)
    expect(page.statusCode).toBe(429)
    expect(meta(page.body, 'oidc-device-error')).toBe('throttled')
    expect(page.headers['retry-after']).toBeTruthy()
    // Another browser at the same address is refused too.
    const other = await typeCode(new TestBrowser(test), answer.user_code)
    expect(other.page.statusCode).toBe(429)
  })
})
