import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { once } from 'node:events'
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2'
import { hash as bcryptHash, verify as bcryptVerify } from '@node-rs/bcrypt'
import pg from 'pg'
import { dropDatabase, machineLine, recreateDatabase, startServer } from './support/server'

/**
 * Moving in (contract section 14, docs/moving-in.md), on PostgreSQL:
 *
 * 1. `npm run users:import` of IMPORT_ACCOUNTS (default 1,000,000) seed-application accounts with
 *    bcrypt hashes (cost 10, the seed application's), from a mongoexport file this makes: accounts
 *    a second (target 5,000; no hashing happens at import, so one precomputed hash is repeated),
 *    and the importer's resident memory sampled every second (target: flat).
 * 2. On the server: the first sign-in of imported accounts (bcrypt checked, Argon2id made, the hash
 *    replaced) against native sign-ins, one request at a time, taking turns; and failed sign-ins of
 *    both (decision 0552). Target: the first sign-in within 1.5 times a native sign-in at the same
 *    cost parameters.
 */
const DATABASE = process.env.IMPORT_DATABASE ?? 'accounts_bench_import'
const ACCOUNTS = Number(process.env.IMPORT_ACCOUNTS ?? 1_000_000)
const SIGN_INS = Number(process.env.IMPORT_SIGN_INS ?? 40)
const PASSWORD = 'Old-System-Password-1'
const TARGET_RATE = 5_000
const TARGET_RATIO = 1.5
const BCRYPT_COST = 10
const ROOT = path.resolve(import.meta.dirname, '..')

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const ms = (n: number) => n.toFixed(1)

async function writeSeedExport(file: string, count: number, passwordHash: string): Promise<number> {
  const out = fs.createWriteStream(file)
  const created = Date.UTC(2023, 0, 1)
  for (let i = 1; i <= count; i++) {
    const id = i.toString(16).padStart(24, '0')
    const at = new Date(created + i * 60_000).toISOString()
    const line = `{"_id":{"$oid":"${id}"},"name":"Person ${i}","email":"person${i}@bench.example","password":"${passwordHash}","phone":null,"role":"CLIENT","status":"ACTIVE","emailVerified":true,"createdAt":{"$date":"${at}"},"updatedAt":{"$date":"${at}"}}\n`
    if (!out.write(line)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
  return fs.statSync(file).size
}

function rssMiB(pid: number): number | undefined {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
    return Number.isFinite(kb) ? kb / 1024 : undefined
  } catch {
    return undefined
  }
}

/** User + system CPU seconds of a process so far (Linux), or undefined once it is gone. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

interface ImportRun {
  seconds: number
  output: string
  code: number | null
  memory: { at: number; mib: number }[]
  /** CPU seconds of the importer and of the PostgreSQL backends serving it, as last seen (sampled each second). */
  cpu: { importer: number; database: number }
}

async function runImport(url: string, file: string): Promise<ImportRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-bench-import-'))
  const started = performance.now()
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/cli/import-users/import-users.ts', '--file', file, '--format', 'mern-ums'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: os.homedir(),
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      AUTH_SECRET: crypto.randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const memory: { at: number; mib: number }[] = []
  // The backends serving the import, found by their database: the CPU a quiet machine would have to give.
  const watcher = new pg.Client({ connectionString: url })
  await watcher.connect()
  const database = new URL(url).pathname.slice(1)
  const backendCpu = new Map<number, number>()
  let importerCpu = 0
  const sampler = setInterval(() => {
    const mib = rssMiB(child.pid!)
    if (mib !== undefined) memory.push({ at: (performance.now() - started) / 1000, mib })
    importerCpu = cpuSeconds(child.pid!) ?? importerCpu
    watcher
      .query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database])
      .then(({ rows }) => {
        for (const { pid } of rows) backendCpu.set(pid, cpuSeconds(pid) ?? backendCpu.get(pid) ?? 0)
      })
      .catch(() => {})
  }, 1000)
  const [code] = (await once(child, 'exit')) as [number | null]
  clearInterval(sampler)
  await watcher.end()
  fs.rmSync(dataDir, { recursive: true, force: true })
  const databaseCpu = [...backendCpu.values()].reduce((sum, n) => sum + n, 0)
  return { seconds: (performance.now() - started) / 1000, output, code, memory, cpu: { importer: importerCpu, database: databaseCpu } }
}

async function signIn(base: string, email: string, password: string): Promise<{ status: number; ms: number }> {
  const start = performance.now()
  const response = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })
  await response.arrayBuffer()
  return { status: response.status, ms: performance.now() - start }
}

export async function run(): Promise<string> {
  const url = await recreateDatabase(DATABASE)
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-bench-import-file-'))
  try {
    const importedHash = await bcryptHash(PASSWORD, BCRYPT_COST)
    const file = path.join(work, 'users.json')
    console.log(`writing a mongoexport file of ${ACCOUNTS.toLocaleString('en-US')} accounts`)
    const bytes = await writeSeedExport(file, ACCOUNTS, importedHash)
    console.log(`importing (${(bytes / 2 ** 20).toFixed(0)} MiB)`)
    const load = os.loadavg()[0]!
    const imported = await runImport(url, file)
    if (imported.code !== 0) throw new Error(`the import exited with ${imported.code}:\n${imported.output}`)
    const rate = ACCOUNTS / imported.seconds
    const mem = imported.memory
    const at = (share: number) => mem[Math.min(mem.length - 1, Math.floor(share * mem.length))]?.mib ?? 0
    const peak = Math.max(...mem.map((m) => m.mib))
    const flat = at(0.9) <= at(0.25) * 1.2 + 16
    const cpuPerAccount = (imported.cpu.importer + imported.cpu.database) / ACCOUNTS
    const idleRate = os.availableParallelism() / cpuPerAccount

    // Native accounts beside the imported ones, with the product's Argon2id of the same password.
    const nativeHash = await argon2Hash(PASSWORD, { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 })
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    await db.query(
      `INSERT INTO users (name, email, password_hash, role, status, email_verified_at, created_at, updated_at)
       SELECT 'Native ' || g, 'native' || g || '@bench.example', $1, 'CLIENT', 'ACTIVE', now(), now(), now() FROM generate_series(1, $2::int) g`,
      [nativeHash, SIGN_INS],
    )
    const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' })
    const first: number[] = []
    const native: number[] = []
    const failedImported: number[] = []
    const failedNative: number[] = []
    // The checks alone, in this process, taking turns with the sign-ins: measured in the same
    // moments as them, so that a change in the machine's load moves both (decision 0555).
    const bcryptAlone: number[] = []
    const argonAlone: number[] = []
    const argonHashAlone: number[] = []
    const timed = async (work: () => Promise<unknown>, into: number[]) => {
      const start = performance.now()
      await work()
      into.push(performance.now() - start)
    }
    try {
      for (let i = 0; i < 5; i++) await signIn(server.url, `native${(i % SIGN_INS) + 1}@bench.example`, PASSWORD)
      for (let i = 1; i <= SIGN_INS; i++) {
        const a = await signIn(server.url, `person${i}@bench.example`, PASSWORD)
        const b = await signIn(server.url, `native${i}@bench.example`, PASSWORD)
        const c = await signIn(server.url, `person${ACCOUNTS - i}@bench.example`, 'Wrong-Password-1')
        const d = await signIn(server.url, `native${i}@bench.example`, 'Wrong-Password-1')
        if (a.status !== 200 || b.status !== 200 || c.status !== 401 || d.status !== 401)
          throw new Error(`unexpected answers ${a.status} ${b.status} ${c.status} ${d.status}`)
        first.push(a.ms)
        native.push(b.ms)
        failedImported.push(c.ms)
        failedNative.push(d.ms)
        await timed(() => bcryptVerify(PASSWORD, importedHash), bcryptAlone)
        await timed(() => argon2Verify(nativeHash, PASSWORD), argonAlone)
        await timed(() => argon2Hash(PASSWORD, { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 }), argonHashAlone)
      }
    } finally {
      await server.stop()
    }
    const upgraded = await db.query(`SELECT count(*)::int AS n FROM users WHERE email LIKE 'person%' AND password_hash LIKE '$argon2id$%'`)
    await db.end()

    const sameCost = median(native) - median(argonAlone) + median(bcryptAlone)
    const ratio = median(first) / sameCost
    // What the first sign-in does beyond that sign-in and the Argon2id hash it must make: the upgrade's write.
    const beyond = median(first) - sameCost - median(argonHashAlone)
    const date = new Date().toISOString().slice(0, 10)
    return `# Moving in: import speed and the first sign-in

Run by \`npm run bench -- import\` on ${date}: ${machineLine()}; load average ${load.toFixed(1)} when the import
began (a shared machine: other processes held the cores too). PostgreSQL on the same machine (default settings).

## Importing ${ACCOUNTS.toLocaleString('en-US')} accounts

\`npm run users:import -- --file users.json --format mern-ums\` into an empty database, from a mongoexport file of
${(bytes / 2 ** 20).toFixed(0)} MiB this benchmark writes (the seed application's fields, one bcrypt hash of cost ${BCRYPT_COST} repeated:
no hashing happens at import). Batches of 1,000 accounts, each in one transaction with its "Imported from mern-ums" entries,
one statement for the batch's rows; while it runs, the search indexes keep a pending list (decision 0555). The accounts get
time-ordered ids, each batch's addresses and source ids are looked up one by one, and a batch's commit does not wait for the disk (decision 0557).

| | Measured | Target | |
| --- | --- | --- | --- |
| Accounts a second (whole command: start, migrations, import) | ${Math.round(rate).toLocaleString('en-US')} (${imported.seconds.toFixed(0)} s) | ${TARGET_RATE.toLocaleString('en-US')} | ${rate >= TARGET_RATE ? 'met' : 'MISSED'} |
| Importer's resident memory at 25 %, 50 %, 90 % of the run; peak (MiB) | ${at(0.25).toFixed(0)}, ${at(0.5).toFixed(0)}, ${at(0.9).toFixed(0)}; ${peak.toFixed(0)} | flat | ${flat ? 'met' : 'MISSED'} |

CPU spent: ${imported.cpu.importer.toFixed(0)} s by the importer, ${imported.cpu.database.toFixed(0)} s by the PostgreSQL backends serving it
(sampled each second), ${(cpuPerAccount * 1e6).toFixed(0)} µs of CPU an account: on ${os.availableParallelism()} idle cores (two batches are written at once) that would be
about ${Math.round(idleRate).toLocaleString('en-US')} accounts a second. Most of it is PostgreSQL keeping the 33 indexes of \`users\` and \`activities\`, which
every live account needs: the three search indexes (through their pending list, and the pairs of letters computed for each
account) take about half of it, the B-trees about a fifth, finding each entry's account (its search text's trigger, its two
foreign keys) about an eighth (perf, at half the run).

The command said: \`${imported.output.trim().split('\n').at(-1)}\`

## The first sign-in of an imported account

On the server (\`src/server/main.ts\`, RATE_LIMIT=off), one request at a time, taking turns: the first sign-in of
${SIGN_INS} imported accounts (bcrypt cost ${BCRYPT_COST} checked, an Argon2id hash made, the hash replaced with its entry),
a native sign-in (Argon2id, m=19456, t=2, p=1), and a wrong password on each kind. Medians in ms:

| | Median |
| --- | --- |
| Native sign-in | ${ms(median(native))} |
| First sign-in of an imported bcrypt account | ${ms(median(first))} |
| Wrong password, native account | ${ms(median(failedNative))} |
| Wrong password, imported account not yet upgraded | ${ms(median(failedImported))} |
| bcrypt cost ${BCRYPT_COST} check alone (this process) | ${ms(median(bcryptAlone))} |
| Argon2id check alone (this process) | ${ms(median(argonAlone))} |
| Argon2id hash alone (this process) | ${ms(median(argonHashAlone))} |

${upgraded.rows[0].n} of the ${SIGN_INS} accounts signed in now hold an Argon2id hash.

A native sign-in at the same cost parameters, one whose password check costs what bcrypt cost ${BCRYPT_COST} costs, takes
${ms(sameCost)} ms (the native sign-in, less its Argon2id check, plus a bcrypt check). The first sign-in of an imported
account takes **${ratio.toFixed(2)} times** that (target: at most ${TARGET_RATIO}; ${ratio <= TARGET_RATIO ? 'met' : 'MISSED'}): the difference is the
Argon2id hash made for the upgrade (${ms(median(argonHashAlone))} ms alone) and its write (the rest: ${ms(beyond)} ms). The checks alone are
measured in the bench's process, one at a time, taking turns with the sign-ins, so that both see the same load. Against the product's own native sign-in it is
${(median(first) / median(native)).toFixed(1)} times, since bcrypt at cost ${BCRYPT_COST} costs more than the product's Argon2id: an imported
hash is checked at its own cost, no shortcut (decision 0551).

A wrong password costs the same on both kinds of account (decision 0552): each does one check of every kind of hash
some account holds, here Argon2id and bcrypt cost ${BCRYPT_COST}, until every imported account has signed in once.
`
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
    await dropDatabase(DATABASE)
  }
}
