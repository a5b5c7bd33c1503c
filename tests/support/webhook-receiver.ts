import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A webhook receiver on a real socket: it keeps every request (headers and body as sent) and
 * answers as the test says (by default 204). `hang` leaves a request unanswered until close.
 */
export interface Received {
  path: string
  headers: Record<string, string>
  body: string
  /** The paths of earlier requests whose connections were still open when this one arrived. */
  openAtArrival: string[]
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang'

export interface Receiver {
  url: (path?: string) => string
  received: Received[]
  /** What happened, in order: `request /path` when one arrived, `closed /path` when its connection ended. */
  log: string[]
  answer: (respond: (request: Received) => Answer) => void
  close: () => Promise<void>
}

/** Starts a receiver on 127.0.0.1, on the given port (one the test chose before) or a free one. */
export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = []
  const log: string[] = []
  const open = new Map<number, string>()
  let counter = 0
  let respond: (request: Received) => Answer = () => ({ status: 204 })
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value
      const entry = { path: request.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8'), openAtArrival: [...open.values()] }
      const key = ++counter
      open.set(key, entry.path)
      received.push(entry)
      log.push(`request ${entry.path}`)
      response.on('close', () => {
        open.delete(key)
        log.push(`closed ${entry.path}`)
      })
      const answer = respond(entry)
      if (answer === 'hang') return
      response.writeHead(answer.status, answer.headers ?? {})
      response.end(answer.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const listening = (server.address() as AddressInfo).port
  return {
    url: (path = '/hook') => `http://127.0.0.1:${listening}${path}`,
    received,
    log,
    answer: (next) => {
      respond = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
