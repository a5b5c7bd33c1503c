import type { Locator, Page } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Received, type Receiver, startReceiver } from '../support/webhook-receiver'
import { type AppPage, openSignedIn, toast } from './support/browser'
import { browserTests } from './support/fixtures'

/**
 * Admin → Webhooks against the real server and a real receiver on a socket, which verifies every
 * delivery with the `standardwebhooks` package as a customer's receiver would: the admin adds an
 * endpoint, copies its secret, sees a registration and a test event arrive verified, and sends a
 * failed delivery again with Retry.
 */
const e2e = browserTests()
let receiver: Receiver

beforeAll(async () => {
  receiver = await startReceiver()
})

afterAll(async () => {
  await receiver?.close()
})

const verify = (secret: string, request: Received) => new Webhook(secret).verify(request.body, request.headers) as { type: string; data: Record<string, unknown> }

async function asAdmin(): Promise<AppPage> {
  const app = await e2e.open()
  await openSignedIn(app.page, e2e.server, e2e.server.admin, '/admin/webhooks')
  await app.page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
  return app
}

/** Adds an endpoint through the page and returns its secret, read from the dialog that shows it once. */
async function addEndpoint(page: Page, url: string, events: string[]): Promise<string> {
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add Webhook Endpoint' })
  await dialog.getByLabel('Endpoint URL').fill(url)
  for (const event of events) await dialog.getByRole('checkbox', { name: event, exact: true }).check()
  await dialog.getByRole('button', { name: 'Add endpoint' }).click()
  const shown = page.getByRole('dialog', { name: 'Signing Secret' })
  const secret = await shown.getByLabel('Signing secret', { exact: true }).inputValue()
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
  await shown.getByRole('button', { name: 'Done' }).click()
  await shown.waitFor({ state: 'detached' })
  return secret
}

/** The deliveries table's row of this event type (the newest first). */
const deliveryRow = (card: Locator, type: string) => card.getByRole('row').filter({ hasText: type }).first()

describe('admin webhooks', () => {
  test('the admin adds an endpoint, a registration and a test event arrive at the receiver verified, and show as delivered', async () => {
    const { page } = await asAdmin()
    const url = receiver.url('/verified')
    const secret = await addEndpoint(page, url, ['user.created'])
    const card = page.getByRole('region', { name: url })
    await expect.poll(() => card.getByRole('list', { name: `Events sent to ${url}` }).innerText()).toBe('user.created')
    await expect.poll(() => card.getByText('Enabled', { exact: true }).count()).toBe(1)

    // A person registers: user.created is delivered.
    const person = await e2e.accounts.create()
    await expect.poll(() => receiver.received.filter((request) => request.path === '/verified').length).toBe(1)

    await card.getByRole('button', { name: 'Send test event' }).click()
    await toast(page, 'Test event queued: it shows in the deliveries in a moment').waitFor()
    const table = card.getByRole('table', { name: `Deliveries to ${url}` })
    await table.waitFor()
    await expect.poll(() => deliveryRow(card, 'webhook.test').getByText('Delivered', { exact: true }).count(), { timeout: 30_000 }).toBe(1)
    await expect.poll(() => deliveryRow(card, 'user.created').getByText('Delivered', { exact: true }).count()).toBe(1)
    expect(await deliveryRow(card, 'webhook.test').getByRole('cell').nth(4).innerText()).toContain('204')

    const arrived = receiver.received.filter((request) => request.path === '/verified')
    expect(arrived).toHaveLength(2)
    const [created, tested] = arrived.map((request) => verify(secret, request))
    expect(created!.type).toBe('user.created')
    expect((created!.data.user as { email: string }).email).toBe(person.email)
    expect(tested!.type).toBe('webhook.test')
    // The row names the delivery by the webhook-id the receiver got.
    expect(await deliveryRow(card, 'webhook.test').innerText()).toContain(arrived[1]!.headers['webhook-id']!)

    // The status filter: nothing failed, both delivered.
    const filter = card.getByRole('combobox', { name: 'Status' })
    await filter.selectOption({ label: 'Failed' })
    await card.getByText('No deliveries with this status.').waitFor()
    expect(await table.count()).toBe(0)
    await filter.selectOption({ label: 'Delivered' })
    await expect.poll(() => deliveryRow(card, 'webhook.test').count()).toBe(1)
    expect(await deliveryRow(card, 'user.created').count()).toBe(1)
  })

  test('a failed delivery shows its answer; Retry sends it again with the same webhook-id, and it is delivered', async () => {
    const { page } = await asAdmin()
    const url = receiver.url('/busy')
    // Busy for an hour: the next automatic attempt is an hour away, so only Retry sends it now.
    receiver.answer((request) => (request.path === '/busy' ? { status: 429, headers: { 'Retry-After': '3600' }, body: 'Too busy, try later' } : { status: 204 }))
    const secret = await addEndpoint(page, url, ['application.deleted'])
    const card = page.getByRole('region', { name: url })

    await card.getByRole('button', { name: 'Send test event' }).click()
    const row = deliveryRow(card, 'webhook.test')
    await expect.poll(() => row.getByText('Failed', { exact: true }).count(), { timeout: 30_000 }).toBe(1)
    await expect.poll(() => row.getByRole('cell').nth(4).innerText()).toContain('429')
    await row.getByText('Response body').click()
    await row.getByText('Too busy, try later').waitFor()
    expect(await row.getByText(/^Next attempt /).count()).toBe(1)
    const filter = card.getByRole('combobox', { name: 'Status' })
    await filter.selectOption({ label: 'Delivered' })
    await card.getByText('No deliveries with this status.').waitFor()
    await filter.selectOption({ label: 'Failed' })
    await expect.poll(() => row.count()).toBe(1)
    await filter.selectOption({ label: 'All statuses' })

    receiver.answer(() => ({ status: 204 }))
    await row.getByRole('button', { name: /^Retry webhook\.test/ }).click()
    await toast(page, 'Delivery queued again').waitFor()
    await expect.poll(() => row.getByText('Delivered', { exact: true }).count(), { timeout: 30_000 }).toBe(1)
    expect(await row.getByRole('cell').nth(2).innerText()).toContain('2')

    const arrived = receiver.received.filter((request) => request.path === '/busy')
    expect(arrived).toHaveLength(2)
    expect(arrived[1]!.headers['webhook-id']).toBe(arrived[0]!.headers['webhook-id'])
    for (const request of arrived) expect(verify(secret, request).type).toBe('webhook.test')
  })
})
