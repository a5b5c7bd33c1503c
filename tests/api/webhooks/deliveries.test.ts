import { sql } from 'kysely'
import { generateSync } from 'otplib'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { WEBHOOK_EVENT_TYPES } from '~shared/schemas/webhooks'
import { leaseDueDeliveries, recordAttempts } from '~server/data/webhooks/deliveries'
import { insertEvent } from '~server/data/webhooks/events'
import { MAX_PER_ENDPOINT, nextPlaces, PER_ENDPOINT } from '~server/jobs/webhook-sender'
import { type SignedIn, STRONG_PASSWORD, uniqueEmail, useTestApp } from '../../support/test-app'
import { type Received, type Receiver, startReceiver } from '../../support/webhook-receiver'
import { as, expectFailure, expectSuccess } from '../helpers/requests'
import { quickSignIn, quickUser } from '../helpers/users'

/**
 * Webhooks delivered to a real receiver on a socket, which checks every delivery with the
 * `standardwebhooks` package as a customer's receiver would (contract section 12).
 */
const t = useTestApp()

let admin: SignedIn
let receiver: Receiver
beforeAll(async () => {
  admin = await quickSignIn(t, { role: 'ADMIN', name: 'Hook Admin' })
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver?.close()
})
/** Signs the admin in again: the tests move the clock past an access token's life. */
async function signInAgain(): Promise<void> {
  const data = (await t.login(admin.email, admin.password)).json().data
  admin = { ...admin, accessToken: data.accessToken, refreshToken: data.refreshToken, csrfToken: data.csrfToken }
}
beforeEach(async () => {
  // Each test starts with no endpoint, nothing in flight and an empty mailbag.
  await t.ctx.db.deleteFrom('webhooks').execute()
  await deliver()
  await signInAgain()
  receiver.received.length = 0
  receiver.log.length = 0
  receiver.answer(() => ({ status: 204 }))
  t.runtime.webhookSender.timeoutMs = 15_000
})

const api = () => as(t, admin)
const deliver = () => t.runtime.webhookSender.drain()
async function addEndpoint(events: string[], path = '/hook'): Promise<{ id: string; secret: string }> {
  const data = expectSuccess(await api().post('/api/admin/webhooks', { url: receiver.url(path), events, description: 'Test receiver' }), 201).data
  return { id: data.webhook.id, secret: data.secret }
}
/** Verified as a customer's receiver does it: throws on a bad signature, answers the payload. */
const verify = (secret: string, request: Received) => new Webhook(secret).verify(request.body, request.headers) as { type: string; timestamp: string; data: any }
const deliveriesOf = async (id: string) => expectSuccess(await api().get(`/api/admin/webhooks/${id}/deliveries`)).data.deliveries as any[]

describe('adding an endpoint', () => {
  it('answers the endpoint and a whsec_ secret of 32 random bytes, shown once and never listed', async () => {
    const response = expectSuccess(await api().post('/api/admin/webhooks', { url: receiver.url(), events: ['user.created', 'user.deleted'] }), 201)
    expect(response.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(response.data.secret.slice(6), 'base64')).toHaveLength(32)
    expect(response.data.webhook).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: receiver.url(),
      description: '',
      events: ['user.created', 'user.deleted'],
      enabled: true,
      disabledReason: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    const listed = expectSuccess(await api().get('/api/admin/webhooks')).data.webhooks
    expect(listed).toEqual([response.data.webhook])
    expect(JSON.stringify(listed)).not.toContain(response.data.secret.slice(6))
  })

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'URL must not point at a link-local or cloud metadata address'],
    ['http://2852039166/', 'URL must not point at a link-local or cloud metadata address'],
    ['http://0xa9fea9fe/', 'URL must not point at a link-local or cloud metadata address'],
    ['http://0251.0376.0251.0376/', 'URL must not point at a link-local or cloud metadata address'],
    ['http://169.254.43518/', 'URL must not point at a link-local or cloud metadata address'],
    ['http://[::ffff:169.254.169.254]/', 'URL must not point at a link-local or cloud metadata address'],
    ['http://[::ffff:a9fe:a9fe]/', 'URL must not point at a link-local or cloud metadata address'],
    ['http://[fe80::1]/', 'URL must not point at a link-local or cloud metadata address'],
    ['http://[fd00:ec2::254]/', 'URL must not point at a link-local or cloud metadata address'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'URL must not point at a link-local or cloud metadata address'],
    ['https://user:pass@hooks.example.com/', 'URL must not contain a user name or password'],
    ['https://hooks.example.com/#part', 'URL must not contain a fragment (#)'],
    ['ftp://hooks.example.com/', 'URL must be an absolute http or https URL'],
    ['/relative', 'URL must be an absolute http or https URL'],
  ])('refuses %s', async (url, message) => {
    const body = expectFailure(await api().post('/api/admin/webhooks', { url, events: ['user.created'] }), 400)
    expect(body.errors).toContainEqual({ field: 'url', message })
  })

  it.each([
    [[], 'Choose at least one event'],
    [['user.exploded'], 'Unknown event type'],
    [['*', 'user.created'], 'Events must be a list of event types, or ["*"]'],
    ['user.created', 'Events must be a list of event types, or ["*"]'],
  ])('refuses the events %j', async (events, message) => {
    const body = expectFailure(await api().post('/api/admin/webhooks', { url: receiver.url(), events }), 400)
    expect(body.errors?.[0]).toEqual({ field: expect.stringMatching(/^events(\.0)?$/), message })
    expect(await t.ctx.db.selectFrom('webhooks').select('id').execute()).toEqual([])
  })

  it('accepts plain http on a private network address, where internal receivers live', async () => {
    expectSuccess(await api().post('/api/admin/webhooks', { url: 'http://10.1.2.3:8080/hooks', events: ['*'] }), 201)
  })
})

describe('deliveries', () => {
  it('sends every event type the product makes, each verified by standardwebhooks, with the same id as the feed', async () => {
    const { secret } = await addEndpoint(['*'])
    // Registration and the verification link.
    const email = uniqueEmail('hooked')
    expectSuccess(
      await t.request('POST', '/api/auth/register', { body: { name: 'Hugo Hooked', email, password: STRONG_PASSWORD, confirmPassword: STRONG_PASSWORD } }),
      201,
    )
    await t.deliverMail()
    const mail = t.outbox().find((message) => message.to === email)!
    expectSuccess(await t.request('GET', `/api/auth/verify-email/${/token=([^&\s"]+)/.exec(mail.text)![1]}`))
    // Sign-in, profile, password, two-factor, signing out everywhere.
    const signedIn = (await t.login(email, STRONG_PASSWORD)).json().data
    const person = { accessToken: signedIn.accessToken, csrfToken: signedIn.csrfToken } as SignedIn
    expectSuccess(await as(t, person).put('/api/users/profile', { name: 'Hugo Renamed' }))
    const setup = expectSuccess(await as(t, person).post('/api/auth/mfa/totp/setup', { password: STRONG_PASSWORD })).data
    const code = generateSync({ secret: setup.secret, epoch: Math.floor(t.clock.now().getTime() / 1000) })
    expectSuccess(await as(t, person).post('/api/auth/mfa/totp/enable', { code }))
    expectSuccess(
      await as(t, person).put('/api/users/change-password', {
        currentPassword: STRONG_PASSWORD,
        newPassword: 'Brand-New-8-Secret!',
        confirmPassword: 'Brand-New-8-Secret!',
      }),
    )
    expectSuccess(await as(t, person).post('/api/auth/logout-all', {}))
    // An administrator's changes and deletion.
    const id = (await t.ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id
    expectSuccess(await api().put(`/api/admin/users/${id}`, { role: 'DEVELOPER' }))
    expectSuccess(await api().put(`/api/admin/users/${id}`, { status: 'INACTIVE' }))
    expectSuccess(await api().delete(`/api/admin/users/${id}`))
    // Applications, and a test event.
    const app = expectSuccess(await api().post('/api/admin/applications', { name: 'Hooked App', type: 'public', redirectUris: ['https://app.example.com/cb'] }), 201).data
    expectSuccess(await api().put(`/api/admin/applications/${app.application.id}`, { name: 'Hooked App 2' }))
    expectSuccess(await api().delete(`/api/admin/applications/${app.application.id}`))
    const endpoint = (await t.ctx.db.selectFrom('webhooks').select('id').executeTakeFirstOrThrow()).id
    expect((await api().post(`/api/admin/webhooks/${endpoint}/test`, {})).statusCode).toBe(202)

    await deliver()
    const payloads = receiver.received.map((request) => ({ id: request.headers['webhook-id']!, ...verify(secret, request) }))
    expect(new Set(payloads.map((payload) => payload.type))).toEqual(new Set(WEBHOOK_EVENT_TYPES))
    for (const request of receiver.received) {
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    }
    const deleted = payloads.find((payload) => payload.type === 'user.deleted')!
    expect(deleted.data).toEqual({ id, email })
    expect(payloads.find((payload) => payload.type === 'user.signed_in')!.data.method).toBe('password')
    expect(payloads.find((payload) => payload.type === 'user.security_changed')!.data.change).toBe('two-factor-enabled')
    // The feed holds the same events under the same ids.
    await feedSettled()
    const feed = expectSuccess(await api().get('/api/admin/events?limit=100')).data.events as { id: string }[]
    for (const payload of payloads) expect(feed.map((event) => event.id)).toContain(payload.id)
    expect(JSON.stringify(receiver.received)).not.toContain(setup.secret)
  })

  it('sends an endpoint only the events it asked for', async () => {
    const { secret } = await addEndpoint(['user.deleted'])
    const target = await quickUser(t, { status: 'INACTIVE' })
    expectSuccess(await api().put(`/api/admin/users/${target.id}`, { name: 'Filtered Out' }))
    expectSuccess(await api().delete(`/api/admin/users/${target.id}`))
    await deliver()
    expect(receiver.received.map((request) => verify(secret, request).type)).toEqual(['user.deleted'])
  })

  it('tries again on the schedule with the same webhook-id, and lists the attempts', async () => {
    const { id, secret } = await addEndpoint(['webhook.test'])
    let answers = 0
    receiver.answer(() => (++answers === 1 ? { status: 500, body: 'try later' } : { status: 200, body: 'ok' }))
    expect((await api().post(`/api/admin/webhooks/${id}/test`, {})).statusCode).toBe(202)
    await deliver()
    let [delivery] = await deliveriesOf(id)
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, responseStatus: 500, responseBody: 'try later', eventType: 'webhook.test' })
    const listed = async (status: string) =>
      (expectSuccess(await api().get(`/api/admin/webhooks/${id}/deliveries?status=${status}`)).data.deliveries as { id: string }[]).map((row) => row.id)
    expect(await listed('failed')).toEqual([delivery.id])
    expect(await listed('delivered')).toEqual([])
    expect(await listed('all')).toEqual([delivery.id])
    const wait = (Date.parse(delivery.nextAttemptAt) - Date.parse(delivery.lastAttemptAt)) / 1000
    expect(wait).toBeGreaterThanOrEqual(4.5)
    expect(wait).toBeLessThanOrEqual(5.5)
    // Not due yet: nothing is sent.
    await deliver()
    expect(receiver.received).toHaveLength(1)
    t.clock.advance(6)
    await deliver()
    expect(receiver.received).toHaveLength(2)
    await signInAgain()
    ;[delivery] = await deliveriesOf(id)
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2, responseStatus: 200, responseBody: 'ok', nextAttemptAt: null })
    expect(await listed('delivered')).toEqual([delivery.id])
    expect(await listed('failed')).toEqual([])
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id'])
    expect(receiver.received[1]!.headers['webhook-id']).toBe(delivery.eventId)
    verify(secret, receiver.received[1]!)
    // "Retry": sent again at once with the same id, even once delivered.
    expect((await api().post(`/api/admin/webhooks/${id}/deliveries/${delivery.id}/retry`, {})).statusCode).toBe(202)
    await deliver()
    expect(receiver.received).toHaveLength(3)
    expect(receiver.received[2]!.headers['webhook-id']).toBe(delivery.eventId)
    expectFailure(await api().post(`/api/admin/webhooks/${id}/deliveries/whd_nope/retry`, {}), 404, 'Delivery not found', 'DELIVERY_NOT_FOUND')
    expect(expectSuccess(await api().get(`/api/admin/webhooks/${id}/deliveries?status=exhausted`)).data.deliveries).toEqual([])
    expectFailure(await api().get(`/api/admin/webhooks/${id}/deliveries?status=lost`), 400)
  })

  it('waits as long as Retry-After says on a 429 or 503', async () => {
    const { id } = await addEndpoint(['webhook.test'])
    receiver.answer(() => ({ status: 429, headers: { 'retry-after': '120' } }))
    await api().post(`/api/admin/webhooks/${id}/test`, {})
    await deliver()
    const [delivery] = await deliveriesOf(id)
    expect((Date.parse(delivery.nextAttemptAt) - Date.parse(delivery.lastAttemptAt)) / 1000).toBe(120)
    t.clock.advance(60)
    await deliver()
    expect(receiver.received).toHaveLength(1)
    t.clock.advance(61)
    receiver.answer(() => ({ status: 204 }))
    await deliver()
    expect(receiver.received).toHaveLength(2)
  })

  it('disables the endpoint on a 410, saying why', async () => {
    const { id } = await addEndpoint(['webhook.test'])
    receiver.answer(() => ({ status: 410 }))
    await api().post(`/api/admin/webhooks/${id}/test`, {})
    await deliver()
    const [webhook] = expectSuccess(await api().get('/api/admin/webhooks')).data.webhooks
    expect(webhook).toMatchObject({ enabled: false, disabledReason: 'The endpoint answered 410 Gone' })
    // Nothing more goes to it until it is enabled again.
    await api().post(`/api/admin/webhooks/${id}/test`, {})
    t.clock.advance(10)
    await deliver()
    expect(receiver.received).toHaveLength(1)
    receiver.answer(() => ({ status: 204 }))
    await signInAgain()
    expect(expectSuccess(await api().put(`/api/admin/webhooks/${id}`, { enabled: true })).data.webhook).toMatchObject({ enabled: true, disabledReason: null })
    await deliver()
    expect(receiver.received.length).toBe(3)
  })

  it('never follows a redirect: it is a failed attempt', async () => {
    const { id } = await addEndpoint(['webhook.test'])
    receiver.answer((request) => (request.path === '/hook' ? { status: 307, headers: { location: receiver.url('/elsewhere') } } : { status: 204 }))
    await api().post(`/api/admin/webhooks/${id}/test`, {})
    await deliver()
    expect(receiver.received.map((request) => request.path)).toEqual(['/hook'])
    expect((await deliveriesOf(id))[0]).toMatchObject({ status: 'failed', responseStatus: 307 })
  })

  it('gives a receiver that never answers until the timeout, and holds up no other endpoint meanwhile', async () => {
    const slow = await addEndpoint(['webhook.test'], '/slow')
    const fast = await addEndpoint(['webhook.test'], '/fast')
    receiver.answer((request) => (request.path === '/slow' ? 'hang' : { status: 204 }))
    t.runtime.webhookSender.timeoutMs = 3_000
    await api().post(`/api/admin/webhooks/${slow.id}/test`, {})
    receiver.log.length = 0
    const draining = deliver()
    await api().post(`/api/admin/webhooks/${fast.id}/test`, {})
    await draining
    // The fast endpoint got its delivery while the slow one still held its connection open.
    expect(receiver.received.map((request) => request.path)).toEqual(['/slow', '/fast'])
    expect(receiver.received[1]!.openAtArrival).toEqual(['/slow'])
    expect((await deliveriesOf(fast.id))[0]).toMatchObject({ status: 'delivered' })
    expect((await deliveriesOf(slow.id))[0]).toMatchObject({ status: 'failed', responseStatus: null, responseBody: 'No answer within 3 s' })
  })

  it('sends a receiver that does not answer at most 4 deliveries at once', async () => {
    const slow = await addEndpoint(['webhook.test'], '/slow')
    receiver.answer(() => 'hang')
    // Long enough that the fourth arrives before the first gives up, even when a busy machine
    // stalls this process for a second.
    t.runtime.webhookSender.timeoutMs = 4_000
    for (let n = 0; n < 6; n++) await api().post(`/api/admin/webhooks/${slow.id}/test`, {})
    receiver.log.length = 0
    await deliver()
    expect(receiver.received).toHaveLength(6)
    const open = receiver.received.map((request) => request.openAtArrival.filter((path) => path === '/slow').length)
    expect(Math.max(...open)).toBe(PER_ENDPOINT - 1)
    expect((await deliveriesOf(slow.id)).map((delivery: { status: string }) => delivery.status)).toEqual(Array(6).fill('failed'))
  })

  it('sends what did not fit in a pass as the attempts before it end, and writes every outcome, without being drained', async () => {
    const { id } = await addEndpoint(['webhook.test'])
    // Ten events committed at once and one wake-up: the first pass fills the endpoint's 4 places,
    // and the ends of those attempts must wake the passes that send the rest (the test app has no poll).
    await t.ctx.db.transaction().execute(async (trx) => {
      for (let n = 0; n < 10; n++) await insertEvent(trx, { type: 'webhook.test', data: { n }, at: t.ctx.clock(), webhookId: id })
    })
    t.runtime.webhookSender.kick()
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(10)
    await expect
      .poll(async () => (await deliveriesOf(id)).map((delivery: { status: string }) => delivery.status), { timeout: 10_000 })
      .toEqual(Array(10).fill('delivered'))
  })

  it("grows an endpoint's places by one with each fast answer, halves them after a slow one, within 4 and 32", () => {
    expect(nextPlaces(PER_ENDPOINT, true)).toBe(5)
    expect(nextPlaces(MAX_PER_ENDPOINT, true)).toBe(MAX_PER_ENDPOINT)
    expect(nextPlaces(20, false)).toBe(10)
    expect(nextPlaces(5, false)).toBe(PER_ENDPOINT)
    expect(nextPlaces(PER_ENDPOINT, false)).toBe(PER_ENDPOINT)
  })

  it('reads at most 1,000 characters of an answer, however long', async () => {
    const { id } = await addEndpoint(['webhook.test'])
    receiver.answer(() => ({ status: 200, body: 'x'.repeat(10 * 1024 * 1024) }))
    await api().post(`/api/admin/webhooks/${id}/test`, {})
    await deliver()
    const [delivery] = await deliveriesOf(id)
    expect(delivery.status).toBe('delivered')
    expect(delivery.responseBody).toHaveLength(1000)
  })

  it('signs with both secrets for 24 hours after a rotation, then with the new one alone', async () => {
    const { id, secret: oldSecret } = await addEndpoint(['webhook.test'])
    const newSecret = expectSuccess(await api().post(`/api/admin/webhooks/${id}/secret`, {})).data.secret as string
    expect(newSecret).not.toBe(oldSecret)
    await api().post(`/api/admin/webhooks/${id}/test`, {})
    await deliver()
    const [first] = receiver.received
    expect(first!.headers['webhook-signature']!.split(' ')).toHaveLength(2)
    expect(verify(newSecret, first!).type).toBe('webhook.test')
    expect(verify(oldSecret, first!).type).toBe('webhook.test')
    t.clock.advance(24 * 60 * 60 + 1)
    await signInAgain()
    await api().post(`/api/admin/webhooks/${id}/test`, {})
    await deliver()
    const second = receiver.received[1]!
    expect(second.headers['webhook-signature']!.split(' ')).toHaveLength(1)
    expect(verify(newSecret, second).type).toBe('webhook.test')
    expect(() => verify(oldSecret, second)).toThrow()
  })

  it('disables an endpoint that failed for 5 days and e-mails every active admin', async () => {
    const { id } = await addEndpoint(['webhook.test'])
    receiver.answer(() => ({ status: 500 }))
    await api().post(`/api/admin/webhooks/${id}/test`, {})
    for (let attempt = 0; attempt < 9; attempt += 1) {
      await deliver()
      t.clock.advance(25 * 60 * 60)
    }
    await signInAgain()
    const [webhook] = expectSuccess(await api().get('/api/admin/webhooks')).data.webhooks
    expect(webhook).toMatchObject({ enabled: false, disabledReason: 'Every delivery failed for 5 days' })
    await t.deliverMail()
    const mails = t.outbox().filter((message) => message.subject.startsWith('A webhook was disabled'))
    expect(mails.map((message) => message.to)).toContain(admin.email)
    expect(mails[0]!.text).toContain(receiver.url())
  })

  it('shows deliveries by outcome, the queue depth and the age of the oldest waiting delivery in the metrics', async () => {
    const sample = (text: string, name: string, labels = '') => Number(new RegExp(`^${name}${labels.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1])
    const scrape = async () => (await t.request('GET', '/metrics')).body
    const before = await scrape()
    const { id } = await addEndpoint(['webhook.test'])
    receiver.answer(() => ({ status: 500 }))
    await api().post(`/api/admin/webhooks/${id}/test`, {})
    await deliver()
    t.clock.advance(60)
    const after = await scrape()
    expect(sample(after, 'accounts_webhook_deliveries_total', '{outcome="failed"}')).toBe(sample(before, 'accounts_webhook_deliveries_total', '{outcome="failed"}') + 1)
    expect(sample(after, 'accounts_webhook_queue_deliveries')).toBe(1)
    expect(sample(after, 'accounts_webhook_oldest_pending_seconds')).toBe(60)
  })

  it('leases a due delivery to one pass at a time, and hands it out again once its lease has run out', async () => {
    const { id } = await addEndpoint(['webhook.test'])
    // Due in an hour of the test's clock, which the running sender never reaches: only these leases take it.
    const now = new Date(t.clock.now().getTime() + 3_600_000)
    await insertEvent(t.ctx.db, { type: 'webhook.test', data: {}, at: now, webhookId: id })
    expect(await leaseDueDeliveries(t.ctx.db, { now: t.clock.now(), leaseUntil: now, limit: 10, perEndpoint: 4, room: new Map() })).toEqual([])
    const lease = (at: Date) => leaseDueDeliveries(t.ctx.db, { now: at, leaseUntil: new Date(at.getTime() + 60_000), limit: 10, perEndpoint: 4, room: new Map() })
    const first = await lease(now)
    expect(first.map((delivery) => [delivery.webhook_id, delivery.attempts])).toEqual([[id, 1]])
    // Being sent, it has no next attempt to show.
    expect(await deliveriesOf(id)).toMatchObject([{ status: 'pending', attempts: 1, nextAttemptAt: null }])
    // Another instance's pass within the lease finds nothing to do.
    expect(await lease(new Date(now.getTime() + 59_000))).toEqual([])
    // The instance died on the way: past the lease the delivery is due again, as a second attempt.
    const again = await lease(new Date(now.getTime() + 60_001))
    expect(again.map((delivery) => [delivery.id, delivery.attempts])).toEqual([[first[0]!.id, 2]])
    // An outcome ends the lease: a failed attempt waits for its next time, then is leased at once.
    await recordAttempts(t.ctx.db, [
      { id: first[0]!.id, status: 'failed', at: now, nextAttemptAt: new Date(now.getTime() + 5_000), responseStatus: 500, responseBody: '' },
    ])
    expect(await deliveriesOf(id)).toMatchObject([{ status: 'failed', attempts: 2, nextAttemptAt: new Date(now.getTime() + 5_000).toISOString() }])
    expect(await lease(new Date(now.getTime() + 4_000))).toEqual([])
    expect((await lease(new Date(now.getTime() + 5_000))).map((delivery) => delivery.attempts)).toEqual([3])
    await t.ctx.db.deleteFrom('webhooks').where('id', '=', id).execute()
  })

  it('drops pending deliveries with a deleted endpoint', async () => {
    const { id } = await addEndpoint(['webhook.test'])
    await t.ctx.db.updateTable('webhooks').set({ enabled: false }).where('id', '=', id).execute()
    await api().post(`/api/admin/webhooks/${id}/test`, {})
    expectSuccess(await api().delete(`/api/admin/webhooks/${id}`))
    expect(await t.ctx.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', id).execute()).toEqual([])
    expectFailure(await api().delete(`/api/admin/webhooks/${id}`), 404, 'Webhook not found', 'WEBHOOK_NOT_FOUND')
  })
})

/**
 * Waits until the feed hands out every event written so far. It holds back an event while any
 * transaction older than the one that wrote it is still open on the database server (decision
 * 0523): on a PostgreSQL server shared with other test files, one of theirs may be, for a moment.
 */
async function feedSettled(): Promise<void> {
  const settled = async () =>
    (await sql<{ settled: boolean }>`SELECT coalesce(max(tx) < pg_snapshot_xmin(pg_current_snapshot()), true) AS settled FROM webhook_events`.execute(t.ctx.db)).rows[0]!
      .settled
  await expect.poll(settled, { timeout: 30_000 }).toBe(true)
}

describe('the events feed', () => {
  it('answers events in order from an opaque cursor, and the same cursor when nothing is new', async () => {
    await feedSettled()
    const start = expectSuccess(await api().get('/api/admin/events?limit=100')).data
    let cursor = start.next as string
    for (let page = 0; page < 50 && start.events.length === 100; page += 1) {
      const more = expectSuccess(await api().get(`/api/admin/events?limit=100&after=${cursor}`)).data
      if (more.events.length === 0) break
      cursor = more.next
    }
    const a = await quickUser(t, { status: 'INACTIVE' })
    const b = await quickUser(t, { status: 'INACTIVE' })
    expectSuccess(await api().delete(`/api/admin/users/${a.id}`))
    expectSuccess(await api().delete(`/api/admin/users/${b.id}`))
    await feedSettled()
    const page1 = expectSuccess(await api().get(`/api/admin/events?after=${cursor}&limit=1&type=user.deleted`)).data
    expect(page1.events.map((event: any) => event.data.id)).toEqual([a.id])
    expect(page1.events[0]).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: 'user.deleted',
      timestamp: expect.any(String),
      data: { id: a.id, email: a.email },
      cursor: page1.next,
    })
    const page2 = expectSuccess(await api().get(`/api/admin/events?after=${page1.next}&type=user.deleted`)).data
    expect(page2.events.map((event: any) => event.data.id)).toEqual([b.id])
    const empty = expectSuccess(await api().get(`/api/admin/events?after=${page2.next}`)).data
    expect(empty).toEqual({ events: [], next: page2.next })
  })

  it('refuses a cursor that is not one of its own, and an unknown type', async () => {
    for (const after of ['nope!', 'bm90LWEtY3Vyc29y', 'MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxLjE']) {
      const body = expectFailure(await api().get(`/api/admin/events?after=${after}`), 400)
      expect(body.errors?.[0]).toEqual({ field: 'after', message: 'Invalid cursor' })
    }
    expectFailure(await api().get('/api/admin/events?type=user.exploded'), 400)
  })

  it('leaves out events older than 30 days', async () => {
    const old = await quickUser(t, { status: 'INACTIVE' })
    expectSuccess(await api().delete(`/api/admin/users/${old.id}`))
    t.clock.advance(31 * 24 * 60 * 60)
    await signInAgain()
    const feed = expectSuccess(await api().get('/api/admin/events?limit=100&type=user.deleted')).data.events as any[]
    expect(feed.map((event) => event.data.id)).not.toContain(old.id)
  })
})
