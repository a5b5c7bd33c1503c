/**
 * The least a server answering at 1,000 a second can do, run beside the real one by the OIDC
 * benchmark to tell this machine's own stalls from the product's: node:http, the bearer token
 * read, and an answer the size of UserInfo's written. No framework, engine, database or logging.
 * A child process: `fork` it with `--import tsx` and PORT in its environment; it sends 'ready' once
 * it listens. With BARE_HEAP_MIB, it also keeps about that much live heap (small objects, as a
 * server's are) and reads a few of them at random in each request: how a server's memory weighs on
 * its tail here (bench/support/memory-monitor-stalls.ts).
 */
import http from 'node:http'

/** The claims a bench account's UserInfo answer carries (src/server/oidc/provider.ts, `findAccount`). */
const claims = {
  sub: '0190b3f2-5f1c-7d4e-9a3b-2c1d0e9f8a7b',
  name: 'Bench User 42',
  updated_at: 1_764_000_000,
  email: 'oidc-bench-42@example.com',
  email_verified: true,
  roles: ['USER'],
}

/** About 64 KiB each: a thousand small objects. */
const held = Array.from({ length: Number(process.env.BARE_HEAP_MIB ?? 0) * 16 }, (_, n) => Array.from({ length: 1000 }, (_, i) => ({ n, i, label: `item ${i}` })))

/** Reads 20 of the held objects at random; their sum goes into the answer's headers, so the reads are done. */
function readHeld(): number {
  let sum = 0
  for (let k = 0; k < 20; k++) sum += held[Math.floor(Math.random() * held.length)]![Math.floor(Math.random() * 1000)]!.i
  return sum
}

const server = http.createServer((request, response) => {
  if (held.length > 0) response.setHeader('x-read', readHeld())
  const status = request.headers.authorization?.startsWith('Bearer ') ? 200 : 401
  const text = JSON.stringify(status === 200 ? claims : { error: 'invalid_token' })
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
  response.end(text)
})
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'))
process.on('disconnect', () => server.close())
