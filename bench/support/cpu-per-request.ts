// Development aid: CPU milliseconds the server process spends per request, for one endpoint.
import fs from 'node:fs'
import { hash } from '@node-rs/argon2'
import autocannon from 'autocannon'
import pg from 'pg'
import { openDatabase } from '../../src/server/db/database'
import { migrateToLatest } from '../../src/server/db/migrate'
import { dropDatabase, recreateDatabase, startServer } from './server'

import { execSync } from 'node:child_process'
const postgresCpuMs = () =>
  execSync('pgrep -x postgres || pgrep postgres').toString().trim().split('\n').reduce((sum, pid) => {
    try { return sum + cpuMs(Number(pid)) } catch { return sum }
  }, 0)
const cpuMs = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}
const url = await recreateDatabase('accounts_bench_cpu')
const handle = await openDatabase({ url })
await migrateToLatest(handle.db)
await handle.close()
const client = new pg.Client({ connectionString: url })
await client.connect()
const h = await hash('Bench-Password-42!')
await client.query(`INSERT INTO users (name,email,password_hash,role,status,email_verified_at) SELECT 'U'||n,'u'||n||'@example.com',$1,CASE WHEN n=0 THEN 'ADMIN' ELSE 'CLIENT' END,'ACTIVE',now() FROM generate_series(0,100) n`, [h])
await client.end()
const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off' }, process.env.PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [])
const tokens = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
  const r = await fetch(`${server.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `u${i + 1}@example.com`, password: 'Bench-Password-42!' }) })
  return ((await r.json()) as { data: { accessToken: string; refreshToken: string } }).data
}))
let i = 0
const pool = tokens.map((t) => t.refreshToken)
const pid = server.child.pid!
for (const which of ['me', 'refresh', 'login'] as const) {
  const before = cpuMs(pid)
  const pgBefore = postgresCpuMs()
  const result = await new Promise<autocannon.Result>((resolve, reject) => autocannon({
    url: `${server.url}/api/auth/${which === 'me' ? 'me' : which === 'login' ? 'login' : 'refresh-token'}`, connections: 20, amount: which === 'login' ? 1000 : 10000,
    requests: [which === 'login'
      ? { method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (r) => ({ ...r, body: JSON.stringify({ email: `u${1 + (i++ % 100)}@example.com`, password: 'Bench-Password-42!' }) }) }
      : which === 'me'
      ? { method: 'GET', setupRequest: (r, c) => { const ctx = c as Record<string, string>; ctx.t ??= tokens[i++ % 20]!.accessToken; return { ...r, headers: { authorization: `Bearer ${ctx.t}` } } } }
      : { method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (r) => ({ ...r, body: JSON.stringify({ refreshToken: pool.shift() }) }), onResponse: (s, b) => { if (s === 200) pool.push(JSON.parse(b).data.refreshToken) } }],
  }, (e, r) => (e ? reject(e) : resolve(r))))
  console.log(which, 'server CPU ms/request', ((cpuMs(pid) - before) / result['2xx']).toFixed(3), 'postgres CPU ms/request', ((postgresCpuMs() - pgBefore) / result['2xx']).toFixed(3), 'non2xx', result.non2xx, 'req/s', result.requests.average, 'p50', result.latency.p50)
}
await server.stop()
await dropDatabase('accounts_bench_cpu')
