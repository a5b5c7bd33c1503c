import http from 'node:http'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { hash } from '@node-rs/argon2'
import { seedBenchUsers, signIn } from './support/accounts'
import { dropDatabase, machineLine, query, recreateDatabase, startServer } from './support/server'

/**
 * A person's own data on PostgreSQL (docs/decisions/0560, 0561): an account with 100,000 activity
 * entries (among 400,000 of 2,000 other accounts) downloads its data through HTTP, its server's
 * resident memory sampled every 100 ms against its memory just before; then the account is deleted,
 * every entry set free of it. Three rounds, each on a fresh account. About two minutes.
 */
const DATABASE = 'accounts_bench_own_data'
const PASSWORD = 'Bench-Password-42!'
const OTHER_USERS = 2_000
const ENTRIES_PER_OTHER = 200
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000)
const ROUNDS = 3

interface Round {
  bytes: number
  exportSeconds: number
  idleMiB: number
  peakMiB: number
  deleteSeconds: number
}

/** Entries about the account, a minute apart, written in statements of 20,000 (each within the server's statement timeout). */
async function seedHistory(url: string, email: string): Promise<void> {
  for (let from = 1; from <= ENTRIES; from += 20_000) {
    await query(url, [
      `INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
       SELECT u.id, u.id, 'logged in', 'Logged in', 'Chrome 131 on macOS', '203.0.113.' || (n % 250), now() - n * interval '1 minute'
       FROM users u, generate_series($2::int, $3::int) AS n WHERE u.email = $1`,
      [email, from, Math.min(ENTRIES, from + 19_999)],
    ])
  }
  await query(url, ['ANALYZE activities'])
}

/** Downloads the export, counting its bytes as they come. */
function download(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
        if (response.statusCode !== 200) {
          response.resume()
          reject(new Error(`${url}: ${response.statusCode}`))
          return
        }
        let bytes = 0
        response.on('data', (chunk: Buffer) => (bytes += chunk.length))
        response.on('end', () => resolve(bytes))
        response.on('error', reject)
      })
      .on('error', reject)
  })
}

export async function run(): Promise<string> {
  const load = os.loadavg()[0]!
  const url = await recreateDatabase(DATABASE)
  const emails = await seedBenchUsers(url, await hash(PASSWORD), OTHER_USERS + ROUNDS)
  const people = emails.splice(0, ROUNDS)
  await query(url, [
    `INSERT INTO activities (user_id, actor_id, kind, activity, ip_address, created_at)
     SELECT u.id, u.id, 'logged in', 'Logged in', '198.51.100.' || (n % 250), now() - n * interval '1 hour'
     FROM users u, generate_series(1, $1::int) AS n WHERE u.email = ANY ($2::text[])`,
    [ENTRIES_PER_OTHER, emails],
  ])
  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' })
  const rounds: Round[] = []
  try {
    for (const email of people) {
      await seedHistory(url, email)
      const { accessToken, csrfToken } = await signIn(server.url, email, PASSWORD)
      const idleMiB = server.rssMiB()
      let peakMiB = idleMiB
      const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, server.rssMiB())), 100)
      let started = performance.now()
      const bytes = await download(`${server.url}/api/auth/export`, accessToken)
      const exportSeconds = (performance.now() - started) / 1000
      clearInterval(sampler)

      started = performance.now()
      const deleted = await fetch(`${server.url}/api/auth/delete-account`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}`, 'x-csrf-token': csrfToken },
        body: JSON.stringify({ password: PASSWORD }),
      })
      const deleteSeconds = (performance.now() - started) / 1000
      if (!deleted.ok) throw new Error(`deleting ${email} failed: ${deleted.status} ${await deleted.text()}`)
      rounds.push({ bytes, exportSeconds, idleMiB, peakMiB, deleteSeconds })
      console.log(
        `${email}: export ${(bytes / 2 ** 20).toFixed(1)} MiB in ${exportSeconds.toFixed(1)} s (RSS ${idleMiB} → ${peakMiB} MiB), delete ${deleteSeconds.toFixed(1)} s`,
      )
    }
  } finally {
    await server.stop()
    await dropDatabase(DATABASE)
  }

  const date = new Date().toISOString().slice(0, 10)
  const rows = rounds.map(
    (round, index) =>
      `| ${index + 1} | ${(round.bytes / 2 ** 20).toFixed(1)} | ${round.exportSeconds.toFixed(1)} | ${Math.round(ENTRIES / round.exportSeconds).toLocaleString('en')} | ${round.idleMiB} | ${round.peakMiB} (+${round.peakMiB - round.idleMiB}) | ${round.deleteSeconds.toFixed(1)} |`,
  )
  return `# A person's own data

Run by \`npm run bench -- own-data\` on ${date}: ${machineLine()}; load average ${load.toFixed(1)} when it began (the
machine is shared: times include time other processes held the cores). PostgreSQL, one server process.

An account with ${ENTRIES.toLocaleString('en')} activity entries, among ${(OTHER_USERS * ENTRIES_PER_OTHER).toLocaleString('en')} entries of
${OTHER_USERS.toLocaleString('en')} other accounts, downloads its data (\`GET /api/auth/export\`, read as fast as the
client can), then deletes its account with its password (\`POST /api/auth/delete-account\`: every entry set
free of it, a batch of 5,000 at a time, in one transaction). Each round is a fresh account.

| Round | Document (MiB) | Export (s) | Entries a second | Server RSS before (MiB) | Peak during the export (MiB) | Delete (s) |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

What to look for: the peak's rise is the young generation filling with the batches' garbage between
collections, not the document: what the export keeps alive is weighed by the flat-memory test after a
collection at each megabyte (tests/api/memory/account-export.test.ts: within a few MiB). The delete
rewrites every entry of the account with every index of the log (a GIN trigram index among them), in
statements of 5,000: its time grows with the account's history (decision 0561).
`
}
