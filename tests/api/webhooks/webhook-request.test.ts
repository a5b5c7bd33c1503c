import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { postWebhook } from '~server/jobs/webhook-request'

/**
 * One webhook POST on kept connections (decision 0526), against a receiver that closes a kept
 * connection when it is used again: what a receiver's idle timeout does when it crosses our next
 * delivery (Node's own server closes idle connections after 5 s, nginx after 75 s).
 */
let server: http.Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

/** A receiver that answers 204 to a connection’s first request and closes it at its first or second, as `closeAt` says. */
async function receiver(closeAt: 'first' | 'second'): Promise<{ url: string; requests: () => number; connections: () => number }> {
  const served = new WeakMap<Socket, number>()
  let requests = 0
  let connections = 0
  server = http.createServer((request, response) => {
    requests++
    const n = (served.get(request.socket) ?? 0) + 1
    served.set(request.socket, n)
    if (closeAt === 'first' || n > 1) {
      request.socket.destroy()
      return
    }
    request.resume()
    request.on('end', () => response.writeHead(204).end())
  })
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/hook`, requests: () => requests, connections: () => connections }
}

const headers = { 'webhook-id': 'msg_test', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' }

describe('a webhook POST', () => {
  it('sends again on a new connection when the kept one is closed as it is reused', async () => {
    const { url, requests, connections } = await receiver('second')
    expect(await postWebhook(url, headers, '{}')).toEqual({ status: 204, body: '', retryAfter: null })
    expect(await postWebhook(url, headers, '{}')).toEqual({ status: 204, body: '', retryAfter: null })
    expect(requests()).toBe(3)
    expect(connections()).toBe(2)
  })

  it('does not send again when a new connection is closed without an answer', async () => {
    const { url, requests } = await receiver('first')
    const answer = await postWebhook(url, headers, '{}')
    expect(answer).toEqual({ error: expect.stringMatching(/^ECONNRESET/) })
    expect(requests()).toBe(1)
  })
})
