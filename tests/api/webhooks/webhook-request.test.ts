import dns from 'node:dns'
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { postWebhook } from '~server/jobs/webhook-request'

/**
 * One webhook POST on kept connections (decision 0526), against a receiver that closes a kept
 * connection when it is used again: what a receiver's idle timeout does when it crosses our next
 * delivery (Node's own server closes idle connections after 5 s, nginx after 75 s).
 */
let server: http.Server | undefined
afterEach(async () => {
  vi.restoreAllMocks()
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
    // The connection is back in the pool once the answer's end has been handled.
    await new Promise((resolve) => setImmediate(resolve))
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

  it('drops the connection of an answer cut at 1,000 characters, and reads no more of it', async () => {
    const size = 10 * 1024 * 1024
    let written = 0
    let closed: Promise<void> | undefined
    server = http.createServer((request, response) => {
      closed = new Promise((resolve) => request.socket.once('close', () => resolve()))
      request.resume()
      request.on('end', () => {
        response.writeHead(200, { 'content-length': String(size) })
        const chunk = Buffer.alloc(64 * 1024, 'x')
        const more = () => {
          while (written < size) {
            written += chunk.length
            if (!response.write(chunk)) return response.once('drain', more)
          }
          response.end()
        }
        more()
      })
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    expect(await postWebhook(url, headers, '{}')).toEqual({ status: 200, body: 'x'.repeat(1000), retryAfter: null })
    // Closed by us, not kept (a kept connection would have to be drained of the rest first).
    const outcome = await Promise.race([closed!.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 2_000))])
    expect(outcome).toBe('closed')
    expect(written).toBeLessThan(size)
  })

  it('counts an answer that breaks off after its status by that status, with what was read', async () => {
    server = http.createServer((request, response) => {
      request.resume()
      request.on('end', () => {
        response.writeHead(200, { 'content-length': '1000' })
        response.write('accepted', () => response.socket?.destroy())
      })
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    expect(await postWebhook(url, headers, '{}')).toEqual({ status: 200, body: 'accepted', retryAfter: null })
  })

  it('does not connect to a name that resolves to a link-local or metadata address', async () => {
    const connections: string[] = []
    server = http.createServer((request, response) => response.end())
    server.on('connection', () => connections.push('made'))
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    // The name resolves to the metadata address and to this machine: one forbidden address refuses it.
    vi.spyOn(dns, 'lookup').mockImplementation(((_name: string, _options: unknown, callback: (error: null, addresses: dns.LookupAddress[]) => void) =>
      callback(null, [
        { address: '127.0.0.1', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ])) as unknown as typeof dns.lookup)
    const answer = await postWebhook(`http://receiver.example.test:${port}/hook`, headers, '{}')
    expect(answer).toEqual({ error: 'receiver.example.test resolves to a link-local or metadata address' })
    expect(connections).toEqual([])
  })
})
