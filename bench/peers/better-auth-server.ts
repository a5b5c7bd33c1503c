/**
 * Better Auth (bench/peers/better-auth.ts) as a real HTTP server in a process of its own, its
 * own Node handler on node:http, as the product's server runs in its own: `fork` it with
 * `--import tsx` and PORT, DATABASE_URL, BA_SECRET (and BA_COOKIE_CACHE=on, BA_JOINS=on for the
 * variants); it sends 'ready' once it listens.
 */
import http from 'node:http'
import { toNodeHandler } from 'better-auth/node'
import { betterAuthPool, createBetterAuth } from './better-auth'

const port = Number(process.env.PORT)
const pool = betterAuthPool(process.env.DATABASE_URL!)
const auth = createBetterAuth({
  baseURL: `http://127.0.0.1:${port}`,
  secret: process.env.BA_SECRET!,
  database: pool,
  cookieCache: process.env.BA_COOKIE_CACHE === 'on',
  joins: process.env.BA_JOINS === 'on',
})
const server = http.createServer(toNodeHandler(auth))
// Fastify's default, which the product's server keeps: idle keep-alive connections stay open as long.
server.keepAliveTimeout = 72_000
server.listen(port, '127.0.0.1', () => process.send?.('ready'))
process.on('disconnect', () => {
  server.close()
  server.closeAllConnections()
  void pool.end()
})
