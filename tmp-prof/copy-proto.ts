import pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'
import { exportUsers } from '~server/data/export-rows'
import { openDatabase } from '~server/db/database'
const url = 'postgres://postgres@127.0.0.1:5432/accounts_bench'
const Q = `SELECT id, name, email, phone, role, status, email_verified_at IS NOT NULL AS email_verified, (created_at AT TIME ZONE 'UTC')::text, (updated_at AT TIME ZONE 'UTC')::text, (last_sign_in_at AT TIME ZONE 'UTC')::text FROM users ORDER BY created_at DESC, id DESC`
const isoTime = (text: string) => `${text.slice(0, 10)}T${text.slice(11, 19)}.${text.length > 20 ? text.slice(20, 23).padEnd(3, '0') : '000'}Z`
const guard = (v: string) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v)
const field = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)
const text = (v: string | null) => (v === null || v === '' ? '' : field(guard(v)))
const line = (u: any) => `${u.id},${text(u.name)},${text(u.email)},${text(u.phone)},${u.role},${u.status},${u.email_verified},${isoTime(u.created_at)},${isoTime(u.updated_at)},${u.last_sign_in_at === null ? '' : isoTime(u.last_sign_in_at)}\r\n`
async function viaCopy() {
  const client = new pg.Client({ connectionString: url }); await client.connect()
  const t = Date.now(); let n = 0, bytes = 0
  const stream = client.query(copyTo(`COPY (${Q}) TO STDOUT`))
  let rest: Buffer | undefined
  const un = (f: string) => (f === '\\N' ? null : f.includes('\\') ? f.replace(/\\(.)/g, (_, c) => ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' } as any)[c] ?? c) : f)
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const buf = rest ? Buffer.concat([rest, chunk]) : chunk
    const end = buf.lastIndexOf(10)
    if (end < 0) { rest = buf; continue }
    rest = end + 1 < buf.length ? buf.subarray(end + 1) : undefined
    const s = buf.toString('utf8', 0, end)
    let out = ''
    for (const l of s.split('\n')) {
      const f = l.split('\t')
      const u = { id: f[0], name: un(f[1]!), email: un(f[2]!), phone: un(f[3]!), role: f[4], status: f[5], email_verified: f[6] === 't', created_at: f[7], updated_at: f[8], last_sign_in_at: un(f[9]!) }
      out += line(u); n++
    }
    bytes += out.length
  }
  console.log('copy', n, ((Date.now() - t) / 1000).toFixed(2), 's', Math.round(n / ((Date.now() - t) / 1000)), 'rows/s')
  await client.end()
}
async function viaCursor() {
  const handle = await openDatabase({ url })
  const t = Date.now(); let n = 0, bytes = 0
  for await (const rows of exportUsers(handle.db, 'postgres', { sort: 'createdAt', order: 'desc', now: new Date() } as never)) { let out = ''; for (const r of rows) { out += line(r); n++ } bytes += out.length }
  console.log('cursor', n, ((Date.now() - t) / 1000).toFixed(2), 's', Math.round(n / ((Date.now() - t) / 1000)), 'rows/s')
}
const t0 = Date.now(); const psql = await import('node:child_process')
await viaCopy(); await viaCursor(); await viaCopy(); await viaCursor()
process.exit(0)
