/**
 * Development aid (`npx tsx bench/support/cpu-per-request.ts`): where the machine's time goes per
 * request, for sign-in, refresh and GET /auth/me at full speed on PostgreSQL. For each endpoint,
 * load runs for 18 s; between its 4th and 14th second the CPU time of the server process, of every
 * PostgreSQL process and of this process (the load generator), and the machine's idle and stolen
 * time, are read from /proc and divided by the answers in that window. PROFILE=1 also writes a V8
 * CPU profile of the server to /tmp/prof.
 */
import { execSync } from 'node:child_process'
import { hash } from '@node-rs/argon2'
import autocannon from 'autocannon'
import { seedBenchUsers, signIn } from './accounts'
import { dropDatabase, machineTime, processCpuMs, recreateDatabase, startServer } from './server'

const PASSWORD = 'Bench-Password-42!'
const USERS = 300

const postgresCpuMs = () =>
  execSync('pgrep postgres')
    .toString()
    .trim()
    .split('\n')
    .map(Number)
    .reduce((sum, pid) => sum + processCpuMs(pid), 0)

function snapshot(serverPid: number) {
  const own = process.cpuUsage()
  const { idle, steal } = machineTime()
  return { server: processCpuMs(serverPid), postgres: postgresCpuMs(), generator: (own.user + own.system) / 1000, answers: 0, idle, steal }
}

const url = await recreateDatabase('accounts_bench_cpu')
await seedBenchUsers(url, await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 }), USERS)

const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off' }, process.env.PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [])
const sessions = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(server.url, `bench${i + 1}@example.com`, PASSWORD)))
const refreshPool = sessions.map((s) => s.refreshToken)
let next = 0

const requests: Record<string, autocannon.Request> = {
  'sign-in': {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupRequest: (r) => ({ ...r, body: JSON.stringify({ email: `bench${1 + (next++ % USERS)}@example.com`, password: PASSWORD }) }),
  },
  refresh: {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupRequest: (r) => ({ ...r, body: JSON.stringify({ refreshToken: refreshPool.shift() }) }),
    onResponse: (status, body) => {
      if (status === 200) refreshPool.push((JSON.parse(body) as { data: { refreshToken: string } }).data.refreshToken)
    },
  },
  'GET /auth/me': {
    method: 'GET',
    setupRequest: (r, context) => {
      const c = context as Record<string, string>
      c.token ??= sessions[next++ % sessions.length]!.accessToken
      return { ...r, headers: { authorization: `Bearer ${c.token}` } }
    },
  },
}
const paths: Record<string, string> = { 'sign-in': '/api/auth/login', refresh: '/api/auth/refresh-token', 'GET /auth/me': '/api/auth/me' }

const rows: string[] = []
for (const [name, request] of Object.entries(requests)) {
  let answers = 0
  let start = snapshot(server.child.pid!)
  let end = start
  const timers = [
    setTimeout(() => ((start = snapshot(server.child.pid!)), (start.answers = answers)), 4_000),
    setTimeout(() => ((end = snapshot(server.child.pid!)), (end.answers = answers)), 14_000),
  ]
  const instance = autocannon({ url: server.url + paths[name], connections: name === 'sign-in' ? 16 : 20, duration: 18, requests: [request] }, () => undefined)
  instance.on('response', (_client, status) => {
    if (status >= 200 && status < 300) answers++
  })
  await new Promise((resolve) => instance.on('done', resolve))
  timers.forEach(clearTimeout)
  const n = end.answers - start.answers
  const per = (key: 'server' | 'postgres' | 'generator' | 'idle' | 'steal') => ((end[key] - start[key]) / n).toFixed(2)
  rows.push(`| ${name} | ${(n / 10).toFixed(0)} | ${per('server')} | ${per('postgres')} | ${per('generator')} | ${per('idle')} | ${per('steal')} |`)
}
await server.stop()
await dropDatabase('accounts_bench_cpu')
console.log('| Request | Answers/s | Server CPU, ms | PostgreSQL CPU, ms | Load generator CPU, ms | Machine idle, ms | Stolen, ms |')
console.log('| --- | --- | --- | --- | --- | --- | --- |')
console.log(rows.join('\n'))
