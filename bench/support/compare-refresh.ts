/**
 * Development aid: refresh-token rotation, before and after a change, on this shared machine.
 *
 *   git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   npx tsx bench/support/compare-refresh.ts /tmp/before .
 *
 * Starts the server of each source tree on a database of its own (PostgreSQL, as `npm run bench`),
 * then measures POST /auth/refresh-token on each in turn (32 connections, ROUNDS rounds of
 * TURN_SECONDS each, the order reversed every other round), so that a slower stretch of the
 * machine weighs on every tree alike. Each turn starts from 64 freshly signed-in sessions (answers
 * in flight when a turn ends are lost, and their tokens with them). Per turn: answers per second,
 * latency, and the CPU time per answer of the server process and of the PostgreSQL backends of its
 * database, read from /proc between the turn's 2nd second and its last.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { hash } from '@node-rs/argon2'
import autocannon from 'autocannon'
import pg from 'pg'
import { freePort } from '../../tests/support/server-process'
import { benchServerUrl, databaseUrl } from './server'

const PASSWORD = 'Bench-Password-42!'
const SESSIONS = 64
const SECONDS = Number(process.env.TURN_SECONDS ?? 10)
const ROUNDS = Number(process.env.ROUNDS ?? 8)

interface Tree {
  root: string
  base: string
  database: string
  child: ChildProcess
  dataDir: string
  pool: string[]
}

async function query(url: string, text: string, values?: unknown[]) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await client.query(text, values)
  } finally {
    await client.end()
  }
}

const cpuMs = (pid: number) => {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return 0
  }
}

async function start(root: string, index: number, passwordHash: string): Promise<Tree> {
  const database = `accounts_bench_compare_${index}`
  await query(benchServerUrl(), `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  await query(benchServerUrl(), `CREATE DATABASE ${database}`)
  const url = databaseUrl(benchServerUrl(), database)
  const port = await freePort()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-compare-'))
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: path.resolve(root),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: url,
      RATE_LIMIT: 'off',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      AUTH_SECRET: crypto.randomBytes(32).toString('hex'),
      ADMIN_EMAIL: 'bench0@example.com',
      ADMIN_PASSWORD: 'Admin-Bench-Pass-42!',
    },
  })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (/is listening on/.test(output)) resolve()
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', () => reject(new Error(`${root}: server exited\n${output}`)))
  })
  await query(
    url,
    `INSERT INTO users (name, email, password_hash, role, status, email_verified_at)
     SELECT 'Bench User ' || n, 'bench' || n || '@example.com', $1, 'CLIENT', 'ACTIVE', now() FROM generate_series(1, $2::int) AS n`,
    [passwordHash, SESSIONS],
  )
  return { root, base: `http://127.0.0.1:${port}`, database, child, dataDir, pool: [] }
}

async function refill(tree: Tree): Promise<void> {
  tree.pool = await Promise.all(
    Array.from({ length: SESSIONS }, async (_, i) => {
      const response = await fetch(`${tree.base}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `bench${i + 1}@example.com`, password: PASSWORD }),
      })
      return ((await response.json()) as { data: { refreshToken: string } }).data.refreshToken
    }),
  )
}

async function turn(tree: Tree, seconds: number) {
  const backends = (await query(benchServerUrl(), 'SELECT pid FROM pg_stat_activity WHERE datname = $1', [tree.database])).rows.map((row) => Number(row.pid))
  let answers = 0
  const snapshot = () => ({ server: cpuMs(tree.child.pid!), postgres: backends.reduce((sum, pid) => sum + cpuMs(pid), 0), answers })
  let first = snapshot()
  let last = first
  const timers = [setTimeout(() => (first = snapshot()), 2_000), setTimeout(() => (last = snapshot()), (seconds - 1) * 1_000)]
  const result = await new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(
      {
        url: `${tree.base}/api/auth/refresh-token`,
        connections: 32,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            setupRequest: (request) => ({ ...request, body: JSON.stringify({ refreshToken: tree.pool.shift() }) }),
            onResponse(status, body) {
              if (status !== 200) return
              answers++
              tree.pool.push((JSON.parse(body) as { data: { refreshToken: string } }).data.refreshToken)
            },
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    ),
  )
  timers.forEach(clearTimeout)
  const n = last.answers - first.answers
  return {
    rate: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    serverMs: (last.server - first.server) / n,
    postgresMs: (last.postgres - first.postgres) / n,
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const roots = process.argv.slice(2)
if (roots.length === 0) {
  console.error('Usage: npx tsx bench/support/compare-refresh.ts <source tree> [<source tree> ...]')
  process.exit(2)
}
const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
const trees: Tree[] = []
try {
  for (const [index, root] of roots.entries()) trees.push(await start(root, index, passwordHash))
  for (const tree of trees) {
    await refill(tree)
    await turn(tree, 3)
  }
  const results = new Map<Tree, Awaited<ReturnType<typeof turn>>[]>(trees.map((tree) => [tree, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const tree of round % 2 ? [...trees].reverse() : trees) {
      await refill(tree)
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      results.get(tree)!.push(await turn(tree, SECONDS))
    }
  }
  console.log(`${os.availableParallelism()} cores, Node ${process.version}, ${ROUNDS} turns of ${SECONDS} s each, load average ${os.loadavg()[0]!.toFixed(1)} at the end`)
  console.log('| Tree | Answers/s, mean (range) | p50 / p99, ms (medians) | Server CPU per answer, ms (median) | PostgreSQL CPU per answer, ms (median) | Non-2xx |')
  console.log('| --- | --- | --- | --- | --- | --- |')
  for (const [tree, turns] of results) {
    const rates = turns.map((t) => t.rate)
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length
    console.log(
      `| ${tree.root} | ${mean.toFixed(0)} (${Math.min(...rates).toFixed(0)}-${Math.max(...rates).toFixed(0)}) | ${median(turns.map((t) => t.p50))} / ${median(turns.map((t) => t.p99))} | ${median(turns.map((t) => t.serverMs)).toFixed(3)} | ${median(turns.map((t) => t.postgresMs)).toFixed(3)} | ${turns.reduce((a, t) => a + t.non2xx, 0)} |`,
    )
  }
} finally {
  for (const tree of trees) {
    tree.child.kill('SIGTERM')
    fs.rmSync(tree.dataDir, { recursive: true, force: true })
  }
  for (const index of roots.keys()) await query(benchServerUrl(), `DROP DATABASE IF EXISTS accounts_bench_compare_${index} WITH (FORCE)`).catch(() => {})
}
