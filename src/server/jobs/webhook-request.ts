import dns from 'node:dns'
import type { LookupFunction } from 'node:net'
import { Agent, errors, request } from 'undici'
import { isForbiddenAddress, isForbiddenHost } from '~shared/webhook-address'

/**
 * One POST of a webhook (decision 0522): redirects are answers like any other (never followed), a
 * receiver has 15 seconds in all to answer (connecting, headers and the body we read), only the
 * first 1,000 characters of its body are read (then the connection is dropped, so a 10 MB answer
 * costs nothing), and a name that resolves to a link-local or metadata address is not connected to.
 * A connection whose answer ended within that is kept open for the endpoint's next delivery
 * (decision 0526). One that the receiver closes just as it is reused carries the delivery again on
 * a new one. Sent by `undici`, which costs half the CPU of Node's `http` client a delivery (decision 0568).
 */
export const WEBHOOK_TIMEOUT_MS = 15_000
export const RESPONSE_BODY_MAX = 1_000

export type WebhookResponse = { status: number; body: string; retryAfter: string | null } | { error: string }

/** Resolves as Node does, then refuses the answer if any address is one a webhook may not reach. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0)
    const list = addresses as dns.LookupAddress[]
    if (list.length === 0 || list.some((entry) => isForbiddenAddress(entry.address))) {
      return callback(Object.assign(new Error(`${hostname} resolves to a link-local or metadata address`), { code: 'EFORBIDDEN' }), '', 0)
    }
    if (options.all) return callback(null, list)
    return callback(null, list[0]!.address, list[0]!.family)
  })
}

/**
 * Connections kept between deliveries, every one opened through `guardedLookup` (an address
 * written in the URL is checked before, by `isForbiddenHost`). A kept connection closes after the
 * receiver's `Keep-Alive: timeout` hint less a second, or 4 s without one.
 */
const agent = new Agent({ connect: { lookup: guardedLookup } })

/**
 * The receiver closed a connection that had carried an earlier answer before this one's: its idle
 * timeout crossed our request. A reset (ECONNRESET) does not say which connection it hit, so it
 * counts as one too: at worst a receiver gets the delivery twice, which its `webhook-id` tells.
 */
const closedAsReused = (error: unknown) =>
  error instanceof errors.SocketError ? (error.socket?.bytesRead ?? 0) > 0 : (error as NodeJS.ErrnoException).code === 'ECONNRESET'

export async function postWebhook(url: string, headers: Record<string, string>, body: string, timeoutMs = WEBHOOK_TIMEOUT_MS): Promise<WebhookResponse> {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return { error: 'Invalid URL' }
  }
  if (isForbiddenHost(target.hostname)) return { error: 'The URL points at a link-local or metadata address' }
  const deadline = AbortSignal.timeout(timeoutMs)
  const send = () =>
    request(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Accounts-Webhooks/1' },
      body,
      dispatcher: agent,
      signal: deadline,
    })
  const failed = (error: unknown): WebhookResponse => ({ error: deadline.aborted ? `No answer within ${timeoutMs / 1000} s` : describe(error) })
  let response
  try {
    try {
      response = await send()
    } catch (error) {
      // Nothing was read: sent again on a new connection, rather than failing and waiting 5
      // seconds for the retry. A new connection closed without an answer is a failed attempt.
      if (deadline.aborted || !closedAsReused(error)) throw error
      response = await send()
    }
  } catch (error) {
    return failed(error)
  }
  const status = response.statusCode
  const retryAfter = typeof response.headers['retry-after'] === 'string' ? response.headers['retry-after'] : null
  response.body.setEncoding('utf8')
  let text = ''
  try {
    for await (const chunk of response.body as AsyncIterable<string>) {
      text += chunk
      if (text.length >= RESPONSE_BODY_MAX) {
        // Dropping the rest closes the connection: a 10 MB answer is never read.
        response.body.destroy()
        break
      }
    }
  } catch (error) {
    // An answer that breaks off after its status still counts by its status, unless time ran out.
    if (deadline.aborted) return failed(error)
  }
  return { status, body: text.slice(0, RESPONSE_BODY_MAX), retryAfter }
}

function describe(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string }
  if (code === 'EFORBIDDEN') return message ?? 'Forbidden address'
  if (error instanceof errors.SocketError) return 'ECONNRESET: the receiver closed the connection before answering'
  return `${code ?? 'Error'}: ${message ?? String(error)}`
}
