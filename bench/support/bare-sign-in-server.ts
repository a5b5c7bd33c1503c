/**
 * The least a sign-in server can do, run beside the real one by the auth benchmark to tell what
 * this machine allows from what the product costs: node:http, the JSON body read and an answer
 * written, Argon2id verification at one per core (as the product's hasher), and, with
 * BARE_DATABASE=on, the sign-in's two statements through `pg`, named as the product runs them:
 * the credentials read and one call of `start_session` (session, refresh token, activity entry).
 * No framework, validation, access token, CSRF token, logging or headers. A child process: `fork`
 * it with `--import tsx`, PORT and DATABASE_URL in its environment; it sends 'ready' once it listens.
 */
import crypto from 'node:crypto'
import http from 'node:http'
import os from 'node:os'
import { verify } from '@node-rs/argon2'
import pLimit from 'p-limit'
import pg from 'pg'
import { userColumns } from '~server/data/users/users'

const withDatabase = process.env.BARE_DATABASE === 'on'
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
const hashing = pLimit(os.availableParallelism())
// Named, as the product runs them (docs/decisions/0009).
const CREDENTIALS = { name: 'credentials', text: `SELECT ${userColumns.join(', ')}, password_hash FROM users WHERE email = $1` }
const START_SESSION = { name: 'start_session', text: 'SELECT start_session($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL) AS id' }
const DAY = 86_400_000

async function signIn(email: string, password: string): Promise<number> {
  const { rows } = await pool.query<{ id: string; password_hash: string }>({ ...CREDENTIALS, values: [email.toLowerCase()] })
  const user = rows[0]
  if (!user) return 401
  if (!(await hashing(() => verify(user.password_hash, password)))) return 401
  const now = Date.now()
  const token = crypto.createHash('sha256').update(crypto.randomBytes(32)).digest()
  await pool.query({
    ...START_SESSION,
    values: [user.id, '127.0.0.1', null, new Date(now), new Date(now + 7 * DAY), new Date(now + 30 * DAY), token, 'logged in', 'Logged in'],
  })
  return 200
}

/** Without the database, every address shares the one hash the benchmark seeded its accounts with. */
async function signInWithoutDatabase(password: string): Promise<number> {
  return (await hashing(() => verify(process.env.BARE_HASH!, password))) ? 200 : 401
}

const server = http.createServer((request, response) => {
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (chunk: string) => (body += chunk))
  request.on('end', () => {
    const { email, password } = JSON.parse(body) as { email: string; password: string }
    const answer = withDatabase ? signIn(email, password) : signInWithoutDatabase(password)
    void answer.then((status) => {
      const text = JSON.stringify({ success: status === 200 })
      response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
      response.end(text)
    })
  })
})
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'))
process.on('disconnect', () => {
  server.close()
  void pool.end()
})
