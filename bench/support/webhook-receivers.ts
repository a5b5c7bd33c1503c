/**
 * Webhook receivers for `npm run bench -- webhooks`, in a process of their own (forked by the
 * benchmark, listening on PORT): every path answers 204 at once. They count the requests of each
 * path, and keep how long after its change each delivery arrived (now minus the body's
 * `timestamp`, the change's moment). Asked `{ stats: true }`, they answer with both and start
 * over.
 */
import http from 'node:http'

const counts = new Map<string, number>()
let lags: number[] = []

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    const arrived = Date.now()
    const path = request.url ?? '/'
    counts.set(path, (counts.get(path) ?? 0) + 1)
    try {
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string }
      lags.push(arrived - Date.parse(timestamp))
    } catch {
      // Not a delivery: counted, not timed.
    }
    response.writeHead(204)
    response.end()
  })
})

process.on('message', () => {
  process.send!({ counts: Object.fromEntries(counts), lags })
  counts.clear()
  lags = []
})
process.on('disconnect', () => process.exit(0))
server.keepAliveTimeout = 5_000
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send!({ ready: true }))
