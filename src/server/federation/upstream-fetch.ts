import http from 'node:http'
import https from 'node:https'
import type { CustomFetch } from 'openid-client'

/**
 * The transport of every request `openid-client` makes to an identity provider (discovery, the
 * code exchange, JWKS, UserInfo, GitHub's API), given to it through its `customFetch` hook: Node's
 * `http`/`https` with kept-alive connections, instead of the global `fetch`, whose WHATWG streams
 * cost a provider sign-in's callback about twice the CPU for the same two calls (decision 0542).
 * `openid-client` still builds every request and checks every answer; this only carries them.
 * Redirects are never followed (the library asks for `manual`), the library's timeout signal
 * aborts the request, and an answer larger than any a provider sends is refused.
 */

/** Far above any discovery document, JWKS, token or UserInfo answer. */
const MAX_ANSWER_BYTES = 5 * 1024 * 1024

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
}

/** Statuses whose answer has no body: a `Response` refuses one. */
const NO_BODY = new Set([101, 103, 204, 205, 304])

function bodyBytes(body: Parameters<CustomFetch>[1]['body']): string | Uint8Array | null {
  if (body === null || body === undefined) return null
  if (typeof body === 'string') return body
  if (body instanceof URLSearchParams) return body.toString()
  if (body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  throw new TypeError('a streamed request body is not sent to identity providers')
}

export const upstreamFetch: CustomFetch = (url, options) =>
  new Promise<Response>((resolve, reject) => {
    const target = new URL(url)
    const transport = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : null
    if (!transport) return reject(new TypeError(`unsupported protocol ${target.protocol}`))
    let body: string | Uint8Array | null
    try {
      body = bodyBytes(options.body)
    } catch (error) {
      return reject(error as Error)
    }
    const headers: Record<string, string | number> = { ...options.headers }
    if (body !== null) headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
    const request = transport.request(target, {
      method: options.method,
      headers,
      agent: agents[target.protocol as 'http:' | 'https:'],
      ...(options.signal ? { signal: options.signal } : {}),
    })
    request.once('error', reject)
    request.once('response', (answer) => {
      const chunks: Buffer[] = []
      let size = 0
      answer.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_ANSWER_BYTES) {
          answer.destroy()
          request.destroy()
          reject(new Error('the identity provider answered more than 5 MB'))
          return
        }
        chunks.push(chunk)
      })
      answer.once('error', reject)
      answer.once('end', () => {
        const status = answer.statusCode ?? 0
        const responseHeaders = new Headers()
        const raw = answer.rawHeaders
        for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!)
        try {
          resolve(new Response(NO_BODY.has(status) ? null : Buffer.concat(chunks, size), { status, statusText: answer.statusMessage ?? '', headers: responseHeaders }))
        } catch (error) {
          reject(error as Error)
        }
      })
    })
    request.end(body ?? undefined)
  })
