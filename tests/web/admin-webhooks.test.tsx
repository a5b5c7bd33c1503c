import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import type { Webhook, WebhookDelivery } from '~shared/schemas/webhooks'
import { WebhooksPage } from '~web/features/admin-webhooks/components/webhooks-page'
import { type FakeApi, fail, installFakeApi, ok } from './support/fake-api'
import { fieldError, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const admin = makeUser({ name: 'Ada Admin', role: 'ADMIN' })

const crm: Webhook = {
  id: 'wh_crm',
  url: 'https://crm.example.com/hooks/accounts',
  description: 'CRM seats',
  events: ['user.created', 'user.deleted'],
  enabled: true,
  disabledReason: null,
  createdAt: '2026-05-01T10:00:00.000Z',
  updatedAt: '2026-05-01T10:00:00.000Z',
}
const gone: Webhook = {
  ...crm,
  id: 'wh_gone',
  url: 'http://10.0.0.7:8080/hook',
  description: '',
  events: ['*'],
  enabled: false,
  disabledReason: 'The endpoint answered 410 Gone',
}

const delivery = (overrides: Partial<WebhookDelivery>): WebhookDelivery => ({
  id: 'd1',
  eventId: 'msg_2zQf1',
  eventType: 'user.created',
  status: 'delivered',
  attempts: 1,
  lastAttemptAt: '2026-05-02T08:00:00.000Z',
  nextAttemptAt: null,
  responseStatus: 204,
  responseBody: '',
  createdAt: '2026-05-02T08:00:00.000Z',
  ...overrides,
})

const page = (deliveries: WebhookDelivery[]) => ok({ deliveries, pagination: { page: 1, limit: 10, total: deliveries.length, pages: 1 } })

function renderWebhooks(webhooks: Webhook[] = [crm, gone], api: FakeApi = installFakeApi()) {
  api.on('GET /admin/webhooks', () => ok({ webhooks }))
  return { api, ...renderApp(<WebhooksPage />, { url: '/admin/webhooks', user: admin }) }
}

const card = (url: string) => screen.getByRole('region', { name: url })

describe('webhooks page', () => {
  test('lists each endpoint: its address, description, state (with why it was disabled) and events', async () => {
    renderWebhooks()
    expect(await screen.findByRole('heading', { level: 1, name: 'Webhooks' })).toBeTruthy()
    await screen.findByRole('list', { name: 'Webhook endpoints' })
    const first = card(crm.url)
    expect(within(first).getByText('CRM seats')).toBeTruthy()
    expect(within(first).getByText('Enabled')).toBeTruthy()
    const events = within(first).getByRole('list', { name: `Events sent to ${crm.url}` })
    expect(
      within(events)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['user.created', 'user.deleted'])
    const second = card(gone.url)
    expect(within(second).getByText('Disabled')).toBeTruthy()
    expect(within(second).getByText('Disabled: The endpoint answered 410 Gone')).toBeTruthy()
    expect(within(second).getByText('All events')).toBeTruthy()
  })

  test('none yet: what an endpoint is, and where the guide for receivers is', async () => {
    renderWebhooks([])
    expect(await screen.findByText('No webhook endpoints yet')).toBeTruthy()
    expect(screen.getByText('docs/webhooks.md').closest('p')!.textContent).toBe("How to receive and verify them is in the product's source: docs/webhooks.md")
  })

  test('a failed load says so and tries again on request', async () => {
    const api = installFakeApi().on('GET /admin/webhooks', fail(503, 'Service unavailable'))
    const { user } = renderApp(<WebhooksPage />, { url: '/admin/webhooks', user: admin })
    expect(await screen.findByText('Failed to load the webhook endpoints. Please try again.')).toBeTruthy()
    api.on('GET /admin/webhooks', ok({ webhooks: [crm] }))
    await user.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('region', { name: crm.url })).toBeTruthy()
  })

  test('adding one sends the chosen events from the shared list, then shows the secret once, with Copy', async () => {
    const { api, user } = renderWebhooks([])
    api.on('POST /admin/webhooks', (request) => ({
      status: 201,
      body: { success: true, data: { webhook: { ...crm, ...(request.body as object) }, secret: 'whsec_c2hvd24tb25jZQ==' } },
    }))
    await user.click(await screen.findByRole('button', { name: 'Add endpoint' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add Webhook Endpoint' })
    // Every event type but webhook.test, which an endpoint gets only when an admin sends one.
    const choices = within(dialog)
      .getAllByRole('checkbox')
      .map((box) => box.getAttribute('id') && document.querySelector(`label[for="${box.id}"]`)!.textContent)
    expect(choices).toEqual([
      'All events',
      'user.created',
      'user.verified',
      'user.updated',
      'user.role_changed',
      'user.status_changed',
      'user.deleted',
      'user.password_changed',
      'user.signed_in',
      'user.signed_out_everywhere',
      'user.security_changed',
      'application.created',
      'application.updated',
      'application.deleted',
    ])
    expect(within(dialog).getByRole('checkbox', { name: 'user.role_changed' }).getAttribute('aria-describedby')).toBeTruthy()
    expect(within(dialog).getByText("A person's role changed")).toBeTruthy()

    await user.type(within(dialog).getByLabelText('Endpoint URL'), ' https://crm.example.com/hooks/accounts ')
    await user.type(within(dialog).getByLabelText(/^Description/), 'CRM seats')
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }))
    expect(await within(dialog).findByText('Choose at least one event')).toBeTruthy()
    expect(api.callsTo('POST /admin/webhooks')).toHaveLength(0)

    await user.click(within(dialog).getByRole('checkbox', { name: 'user.deleted' }))
    await user.click(within(dialog).getByRole('checkbox', { name: 'user.created' }))
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }))
    const shown = await screen.findByRole('dialog', { name: 'Signing Secret' })
    // In the shared list's order, whatever the order they were ticked in.
    expect(api.callsTo('POST /admin/webhooks')[0]!.body).toEqual({ url: crm.url, events: ['user.created', 'user.deleted'], description: 'CRM seats' })
    expect((within(shown).getByLabelText('Signing secret') as HTMLInputElement).value).toBe('whsec_c2hvd24tb25jZQ==')
    expect(within(shown).getByRole('alert').textContent).toContain('it will not be shown again')
    await user.click(within(shown).getByRole('button', { name: 'Copy Signing secret' }))
    expect(await navigator.clipboard.readText()).toBe('whsec_c2hvd24tb25jZQ==')

    await user.click(within(shown).getByRole('button', { name: 'Done' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(document.body.textContent).not.toContain('whsec_c2hvd24tb25jZQ==')
  })

  test('"All events" subscribes to every event, those added later too', async () => {
    const { api, user } = renderWebhooks([])
    api.on('POST /admin/webhooks', { status: 201, body: { success: true, data: { webhook: gone, secret: 'whsec_x' } } })
    await user.click(await screen.findByRole('button', { name: 'Add endpoint' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add Webhook Endpoint' })
    await user.type(within(dialog).getByLabelText('Endpoint URL'), 'http://10.0.0.7:8080/hook')
    await user.click(within(dialog).getByRole('checkbox', { name: 'All events' }))
    expect((within(dialog).getByRole('checkbox', { name: 'user.created' }) as HTMLInputElement).disabled).toBe(true)
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }))
    await screen.findByRole('dialog', { name: 'Signing Secret' })
    expect(api.callsTo('POST /admin/webhooks')[0]!.body).toEqual({ url: 'http://10.0.0.7:8080/hook', events: ['*'], description: '' })
  })

  test("the form checks the address with the server's rules before sending (a metadata address, credentials)", async () => {
    const { api, user } = renderWebhooks([])
    await user.click(await screen.findByRole('button', { name: 'Add endpoint' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add Webhook Endpoint' })
    await user.click(within(dialog).getByRole('checkbox', { name: 'All events' }))
    const url = within(dialog).getByLabelText('Endpoint URL')
    await user.type(url, 'http://169.254.169.254/latest/meta-data')
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }))
    await waitFor(() => expect(fieldError('Endpoint URL')).toBe('URL must not point at a link-local or cloud metadata address'))
    expect(document.activeElement).toBe(url)
    await user.clear(url)
    await user.type(url, 'https://user:pw@crm.example.com/hook')
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }))
    await waitFor(() => expect(fieldError('Endpoint URL')).toBe('URL must not contain a user name or password'))
    expect(api.callsTo('POST /admin/webhooks')).toHaveLength(0)
  })

  test('a 400 from the server shows its message at the field', async () => {
    const { api, user } = renderWebhooks([])
    api.on(
      'POST /admin/webhooks',
      fail(400, 'URL must not contain a fragment (#)', { code: 'VALIDATION_ERROR', errors: [{ field: 'url', message: 'URL must not contain a fragment (#)' }] }),
    )
    await user.click(await screen.findByRole('button', { name: 'Add endpoint' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add Webhook Endpoint' })
    await user.type(within(dialog).getByLabelText('Endpoint URL'), 'https://crm.example.com/hook')
    await user.click(within(dialog).getByRole('checkbox', { name: 'user.created' }))
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }))
    await waitFor(() => expect(fieldError('Endpoint URL')).toBe('URL must not contain a fragment (#)'))
    expect(screen.getByRole('dialog', { name: 'Add Webhook Endpoint' })).toBeTruthy()
  })

  test('edit starts from the endpoint as it is and sends its address, events and description', async () => {
    const { api, user } = renderWebhooks()
    api.on('PUT /admin/webhooks/:id', (request) => ok({ webhook: { ...crm, ...(request.body as object) } }))
    await user.click(await screen.findByRole('button', { name: `Actions for ${crm.url}` }))
    await user.click(await screen.findByRole('menuitem', { name: 'Edit' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit Webhook Endpoint' })
    expect((within(dialog).getByLabelText('Endpoint URL') as HTMLInputElement).value).toBe(crm.url)
    expect((within(dialog).getByRole('checkbox', { name: 'user.created' }) as HTMLInputElement).checked).toBe(true)
    expect((within(dialog).getByRole('checkbox', { name: 'user.updated' }) as HTMLInputElement).checked).toBe(false)
    await user.click(within(dialog).getByRole('checkbox', { name: 'user.updated' }))
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }))
    await waitFor(() =>
      expect(api.callsTo('PUT /admin/webhooks/:id')[0]?.body).toEqual({
        url: crm.url,
        events: ['user.created', 'user.updated', 'user.deleted'],
        description: 'CRM seats',
      }),
    )
    expect(api.callsTo('PUT /admin/webhooks/:id')[0]!.params.id).toBe(crm.id)
    await waitFor(() => expect(toastTexts()).toContain('Webhook endpoint updated'))
  })

  test('disable and enable send enabled alone', async () => {
    const { api, user } = renderWebhooks()
    api.on('PUT /admin/webhooks/:id', (request) => ok({ webhook: { ...crm, ...(request.body as object) } }))
    await user.click(await screen.findByRole('button', { name: `Actions for ${crm.url}` }))
    await user.click(await screen.findByRole('menuitem', { name: 'Disable' }))
    await waitFor(() => expect(api.callsTo('PUT /admin/webhooks/:id')[0]?.body).toEqual({ enabled: false }))
    await waitFor(() => expect(toastTexts()).toContain('The endpoint is disabled'))
    await user.click(screen.getByRole('button', { name: `Actions for ${gone.url}` }))
    await user.click(await screen.findByRole('menuitem', { name: 'Enable' }))
    await waitFor(() => expect(api.callsTo('PUT /admin/webhooks/:id')[1]?.body).toEqual({ enabled: true }))
    expect(api.callsTo('PUT /admin/webhooks/:id')[1]!.params.id).toBe(gone.id)
  })

  test('rotating the secret asks first, says the old one signs for 24 hours more, then shows the new one once', async () => {
    const { api, user } = renderWebhooks()
    api.on('POST /admin/webhooks/:id/secret', ok({ secret: 'whsec_bmV3LXNlY3JldA==' }))
    await user.click(await screen.findByRole('button', { name: `Actions for ${crm.url}` }))
    await user.click(await screen.findByRole('menuitem', { name: 'Rotate secret' }))
    const confirm = await screen.findByRole('dialog', { name: 'Rotate Signing Secret' })
    expect(confirm.textContent).toContain('keeps signing beside it for 24 hours')
    expect(api.callsTo('POST /admin/webhooks/:id/secret')).toHaveLength(0)
    await user.click(within(confirm).getByRole('button', { name: 'Rotate secret' }))
    const shown = await screen.findByRole('dialog', { name: 'Signing Secret' })
    expect((within(shown).getByLabelText('Signing secret') as HTMLInputElement).value).toBe('whsec_bmV3LXNlY3JldA==')
    expect(api.callsTo('POST /admin/webhooks/:id/secret')[0]!.params.id).toBe(crm.id)
  })

  test('delete asks for confirmation first, then deletes', async () => {
    const { api, user } = renderWebhooks()
    api.on('DELETE /admin/webhooks/:id', ok(undefined, 'Webhook deleted'))
    await user.click(await screen.findByRole('button', { name: `Actions for ${crm.url}` }))
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }))
    const confirm = await screen.findByRole('dialog', { name: 'Delete Webhook Endpoint' })
    expect(confirm.textContent).toContain(`Delete the endpoint ${crm.url}?`)
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    expect(api.callsTo('DELETE /admin/webhooks/:id')).toHaveLength(0)

    await user.click(screen.getByRole('button', { name: `Actions for ${crm.url}` }))
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }))
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete Webhook Endpoint' })).getByRole('button', { name: 'Delete endpoint' }))
    await waitFor(() => expect(api.callsTo('DELETE /admin/webhooks/:id')).toHaveLength(1))
    expect(api.callsTo('DELETE /admin/webhooks/:id')[0]!.params.id).toBe(crm.id)
    await waitFor(() => expect(toastTexts()).toContain('Webhook endpoint deleted'))
  })

  test('send test event queues one and opens the deliveries, which show it', async () => {
    const { api, user } = renderWebhooks([crm])
    let deliveries: WebhookDelivery[] = []
    api.on('GET /admin/webhooks/:id/deliveries', () => page(deliveries))
    api.on('POST /admin/webhooks/:id/test', () => {
      deliveries = [delivery({ id: 'd9', eventType: 'webhook.test', status: 'pending', attempts: 0, lastAttemptAt: null, responseStatus: null, responseBody: null })]
      return { status: 202, body: { success: true, message: 'Test event queued' } }
    })
    await user.click(await screen.findByRole('button', { name: 'Send test event' }))
    await waitFor(() => expect(api.callsTo('POST /admin/webhooks/:id/test')).toHaveLength(1))
    await waitFor(() => expect(toastTexts()).toContain('Test event queued: it shows in the deliveries in a moment'))
    const table = await screen.findByRole('table', { name: `Deliveries to ${crm.url}` })
    expect(within(table).getByText('webhook.test')).toBeTruthy()
    expect(within(table).getByText('Pending')).toBeTruthy()
    expect(within(table).getByText('Not tried yet')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Hide deliveries' }).getAttribute('aria-expanded')).toBe('true')
  })

  test("the deliveries show each one's status, attempts, response code and body; Retry sends one again", async () => {
    const { api, user } = renderWebhooks([crm])
    const failed = delivery({
      id: 'd2',
      eventId: 'msg_2zQf2',
      eventType: 'user.deleted',
      status: 'failed',
      attempts: 3,
      nextAttemptAt: '2026-05-02T08:30:00.000Z',
      responseStatus: 500,
      responseBody: '{"error":"database down"}',
    })
    const exhausted = delivery({ id: 'd3', eventId: 'msg_2zQf3', status: 'exhausted', attempts: 10, responseStatus: null, responseBody: null })
    api.on('GET /admin/webhooks/:id/deliveries', page([failed, delivery({}), exhausted]))
    api.on('POST /admin/webhooks/:id/deliveries/:deliveryId/retry', { status: 202, body: { success: true, message: 'Delivery queued again' } })
    await user.click(await screen.findByRole('button', { name: 'Show deliveries' }))
    const table = await screen.findByRole('table', { name: `Deliveries to ${crm.url}` })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Event', 'Status', 'Attempts', 'Last attempt', 'Response', 'Actions'])
    const rows = within(table).getAllByRole('row').slice(1)
    expect(within(rows[0]!).getByText('Failed')).toBeTruthy()
    expect(within(rows[0]!).getByText(/^Next attempt /)).toBeTruthy()
    expect(within(rows[0]!).getByText('3')).toBeTruthy()
    expect(within(rows[0]!).getByText('500')).toBeTruthy()
    expect(within(rows[0]!).getByText('{"error":"database down"}')).toBeTruthy()
    expect(within(rows[1]!).getByText('Delivered')).toBeTruthy()
    expect(within(rows[1]!).getByText('204')).toBeTruthy()
    expect(within(rows[2]!).getByText('Gave up')).toBeTruthy()
    expect(within(rows[2]!).getByText('No answer')).toBeTruthy()

    await user.click(within(rows[0]!).getByRole('button', { name: 'Retry user.deleted msg_2zQf2' }))
    await waitFor(() => expect(api.callsTo('POST /admin/webhooks/:id/deliveries/:deliveryId/retry')).toHaveLength(1))
    expect(api.callsTo('POST /admin/webhooks/:id/deliveries/:deliveryId/retry')[0]!.params).toEqual({ id: crm.id, deliveryId: 'd2' })
    await waitFor(() => expect(toastTexts()).toContain('Delivery queued again'))
    // The list is asked again, so the new attempt's outcome shows.
    await waitFor(() => expect(api.callsTo('GET /admin/webhooks/:id/deliveries').length).toBeGreaterThan(1))
  })

  test('deliveries come a page at a time', async () => {
    const { api, user } = renderWebhooks([crm])
    api.on('GET /admin/webhooks/:id/deliveries', (request) => {
      const n = Number(request.query.get('page'))
      return ok({ deliveries: [delivery({ id: `d${n}`, eventId: `msg_page${n}` })], pagination: { page: n, limit: 10, total: 11, pages: 2 } })
    })
    await user.click(await screen.findByRole('button', { name: 'Show deliveries' }))
    expect(await screen.findByText('msg_page1')).toBeTruthy()
    expect(api.callsTo('GET /admin/webhooks/:id/deliveries')[0]!.query.get('limit')).toBe('10')
    await user.click(screen.getByRole('button', { name: 'Next' }))
    expect(await screen.findByText('msg_page2')).toBeTruthy()
  })

  test('the status filter asks for that status from the first page, and says when none has it', async () => {
    const { api, user } = renderWebhooks([crm])
    api.on('GET /admin/webhooks/:id/deliveries', (request) => {
      const n = Number(request.query.get('page'))
      if (request.query.get('status') === 'exhausted') return ok({ deliveries: [], pagination: { page: 1, limit: 10, total: 0, pages: 0 } })
      return ok({ deliveries: [delivery({ id: `d${n}`, eventId: `msg_page${n}` })], pagination: { page: n, limit: 10, total: 11, pages: 2 } })
    })
    await user.click(await screen.findByRole('button', { name: 'Show deliveries' }))
    expect(await screen.findByText('msg_page1')).toBeTruthy()
    expect(api.callsTo('GET /admin/webhooks/:id/deliveries')[0]!.query.has('status')).toBe(false)
    await user.click(screen.getByRole('button', { name: 'Next' }))
    expect(await screen.findByText('msg_page2')).toBeTruthy()
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'Gave up')
    expect(await screen.findByText('No deliveries with this status.')).toBeTruthy()
    const last = api.callsTo('GET /admin/webhooks/:id/deliveries').at(-1)!
    expect(last.query.get('status')).toBe('exhausted')
    expect(last.query.get('page')).toBe('1')
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'All statuses')
    expect(await screen.findByText('msg_page1')).toBeTruthy()
    expect(api.callsTo('GET /admin/webhooks/:id/deliveries').at(-1)!.query.has('status')).toBe(false)
  })

  test('in French, the page and the server messages it shows are translated', async () => {
    const { setLanguage } = await import('~web/lib/i18n')
    await setLanguage('fr')
    try {
      renderWebhooks([gone])
      expect(await screen.findByRole('heading', { level: 1, name: 'Webhooks' })).toBeTruthy()
      expect(await screen.findByText('Désactivé : Le point de terminaison a répondu 410 Gone')).toBeTruthy()
      expect(screen.getByRole('button', { name: 'Ajouter un point de terminaison' })).toBeTruthy()
    } finally {
      await setLanguage('en')
    }
  })
})
