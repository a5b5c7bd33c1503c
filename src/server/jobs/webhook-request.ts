import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { isForbiddenAddress, isForbiddenHost } from '~shared/webhook-address'

/**
 * One POST of a webhook (decision 0522): redirects are answers like any other (never followed), a
 * receiver has 15 seconds in all to answer (connecting, headers and the body we read), only the
 * first 1,000 characters of its body are read (then the connection is dropped, so a 10 MB answer
 * costs nothing), and a name that resolves to a link-local or metadata address is not connected to.
 * A connection whose answer ended within that is kept open for the endpoint's next delivery
 * (decision 0526): a new connection (and TLS handshake) per delivery cost more than the delivery.
 * One that the receiver closes just as it is reused carries the delivery again on a new one.
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

/** Connections kept between deliveries; only ever opened through `guardedLookup`. */
const agents = { http: new http.Agent({ keepAlive: true, scheduling: 'lifo' }), https: new https.Agent({ keepAlive: true, scheduling: 'lifo' }) }

export function postWebhook(url: string, headers: Record<string, string>, body: string, timeoutMs = WEBHOOK_TIMEOUT_MS): Promise<WebhookResponse> {
  return new Promise((resolve) => {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return resolve({ error: 'Invalid URL' })
    }
    if (isForbiddenHost(target.hostname)) return resolve({ error: 'The URL points at a link-local or metadata address' })
    const secure = target.protocol === 'https:'
    let settled = false
    let request: http.ClientRequest
    /** `keep`: the answer was read to its end, so its connection can carry the next delivery. */
    const finish = (result: WebhookResponse, keep = false) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (!keep) request.destroy()
      resolve(result)
    }
    const timer = setTimeout(() => finish({ error: `No answer within ${timeoutMs / 1000} s` }), timeoutMs)
    const send = (again: boolean) => {
      request = (secure ? https : http).request(target, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body).toString(), 'user-agent': 'Accounts-Webhooks/1' },
        lookup: guardedLookup,
        agent: secure ? agents.https : agents.http,
      })
      let answered = false
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept connection the receiver closed as it was reused (its idle timeout and our request
        // crossed): nothing was read, so the delivery is sent once more on a new connection, as
        // Node's documentation advises, instead of failing and waiting 5 seconds for its retry.
        if (!again && !answered && !settled && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return send(true)
        finish({ error: error.code === 'EFORBIDDEN' ? error.message : `${error.code ?? 'Error'}: ${error.message}` })
      })
      request.on('response', (response) => {
        answered = true
        const status = response.statusCode ?? 0
        const retryAfter = typeof response.headers['retry-after'] === 'string' ? response.headers['retry-after'] : null
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          text += chunk
          if (text.length >= RESPONSE_BODY_MAX) finish({ status, body: text.slice(0, RESPONSE_BODY_MAX), retryAfter })
        })
        response.on('end', () => finish({ status, body: text, retryAfter }, true))
        response.on('error', () => finish({ status, body: text.slice(0, RESPONSE_BODY_MAX), retryAfter }))
      })
      request.end(body)
    }
    send(false)
  })
}
