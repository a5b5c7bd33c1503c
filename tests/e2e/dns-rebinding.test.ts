import type { Page } from 'playwright-core'
import { expect, test } from 'vitest'
import { browserTests } from './support/fixtures'

/**
 * DNS rebinding in a real browser (decision 0305). The attack: the user opens
 * the attacker's page at http://rebind.attacker.test:PORT, whose name the attacker then makes
 * resolve to 127.0.0.1. From then on the page's scripts reach this server as their own origin, so
 * the browser lets them read every answer; before the Host check they read the reset link of the
 * administrator from /dev/outbox. Here Chromium's `--host-resolver-rules` plays the attacker's DNS
 * (the name goes to 127.0.0.1), and the attacker's page itself is served by the test (as the
 * attacker's server would have before the rebinding). Chromium's own protection of local networks
 * is switched off, as in browsers that have none, so that what stops the page is the server.
 */
const ATTACKER = 'rebind.attacker.test'
const e2e = browserTests({
  // Outbox mode, as `npm start` runs with no configuration: /dev/outbox is there to be stolen from.
  env: { SMTP_URL: '' },
  browserArgs: [
    `--host-resolver-rules=MAP ${ATTACKER} 127.0.0.1`,
    '--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,LocalNetworkAccessChecks',
  ],
})

interface Read {
  status?: number
  body?: string
  error?: string
}

/** What the page's own script gets when it reads these same-origin addresses. */
function readFromPage(page: Page, adminEmail: string): Promise<Record<string, Read>> {
  return page.evaluate(async (email) => {
    const read = async (path: string, init?: RequestInit): Promise<Read> => {
      try {
        const response = await fetch(path, init)
        return { status: response.status, body: await response.text() }
      } catch (error) {
        return { error: String(error) }
      }
    }
    const json = { 'content-type': 'application/json' }
    return {
      outbox: await read('/dev/outbox'),
      health: await read('/api/health'),
      forgot: await read('/api/auth/forgot-password', { method: 'POST', headers: json, body: JSON.stringify({ email }) }),
      signIn: await read('/api/auth/login', { method: 'POST', headers: json, body: JSON.stringify({ email, password: 'Guessing-Away-1!' }) }),
      page: await read('/login'),
    }
  }, adminEmail)
}

test('a page whose name resolves to the server reads nothing: not the outbox, not the API', async () => {
  const { url, admin } = e2e.server
  const port = new URL(url).port
  // Something worth stealing: a reset link for the administrator, waiting in the outbox.
  const asked = await fetch(`${url}/api/auth/forgot-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: admin.email }),
  })
  expect(asked.status).toBe(200)
  await expect.poll(async () => (await (await fetch(`${url}/dev/outbox`)).text()).includes('/reset-password?token='), { timeout: 20_000 }).toBe(true)

  const attacker = await e2e.open()
  attacker.expectFailedRequests(421)
  const origin = `http://${ATTACKER}:${port}`
  await attacker.page.route(`${origin}/prize`, (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><html><head><title>You won</title></head><body>Claim your prize</body></html>' }),
  )
  await attacker.page.goto(`${origin}/prize`)
  expect(new URL(attacker.page.url()).host).toBe(`${ATTACKER}:${port}`)

  const stolen = await readFromPage(attacker.page, admin.email)
  for (const [what, answer] of Object.entries(stolen)) {
    // Each request reached the server (a status, not a network error) and was refused there.
    expect(answer.error, what).toBeUndefined()
    expect(answer.status, what).toBe(421)
    expect(JSON.parse(answer.body!), what).toMatchObject({ success: false, code: 'MISDIRECTED_REQUEST' })
    expect(answer.body, what).not.toContain('reset-password')
  }
  // And the reset it asked for was never made: still one message in the outbox.
  const outbox = await (await fetch(`${url}/dev/outbox`)).text()
  expect(outbox.match(/<article>/g)).toHaveLength(1)

  // The same script on the server's own address reads everything: the mapping and the script are
  // sound, and it is the Host that made the difference.
  const owner = await e2e.open()
  owner.expectFailedRequests(401)
  await owner.page.goto(`${url}/login`)
  const own = await readFromPage(owner.page, admin.email)
  expect(own.outbox!.status).toBe(200)
  expect(own.outbox!.body).toContain('/reset-password?token=')
  expect(own.health!.status).toBe(200)
  expect(own.signIn!.status).toBe(401)
})
