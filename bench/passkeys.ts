import fs from 'node:fs'
import os from 'node:os'
import { hash } from '@node-rs/argon2'
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server'
import { SoftwareAuthenticator } from '../tests/support/software-authenticator'
import { seedBenchUsers, signIn } from './support/accounts'
import { dropDatabase, machineLine, recreateDatabase, startServer } from './support/server'

/**
 * Passkey sign-ins per second beside password sign-ins, in one run on PostgreSQL, the server in
 * its own process. A passkey sign-in is two calls (request options, then the signed response) and
 * no Argon2 hash; the software authenticator of the API tests signs in this process (ES256). Both
 * are driven the same way: a fixed number of workers, each starting its next sign-in when the last
 * one answered, taking turns so a slower stretch of this shared machine weighs on both alike.
 */
const DATABASE = 'accounts_bench_passkeys'
const PASSWORD = 'Bench-Password-42!'
const WORKERS = 16
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)
const ROUNDS = 4
const WARM_UP_SECONDS = 3

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

async function post<T>(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; data: T }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const json = (await response.json()) as { data: T }
  return { status: response.status, data: json.data }
}

interface Measure {
  perSecond: number
  completed: number
  failures: number
  latencies: number[]
}

/** User + system CPU time of one process so far, ms (Linux). */
function processCpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

/** `WORKERS` closed loops for `seconds`, each running `once` again as soon as it settles. */
async function closedLoop(seconds: number, once: (worker: number) => Promise<boolean>): Promise<Measure> {
  const until = Date.now() + seconds * 1000
  const start = Date.now()
  let done = 0
  let failures = 0
  const latencies: number[] = []
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, worker) => {
      while (Date.now() < until) {
        const began = performance.now()
        if (await once(worker)) {
          done++
          latencies.push(performance.now() - began)
        } else failures++
      }
    }),
  )
  return { perSecond: (done * 1000) / (Date.now() - start), completed: done, failures, latencies }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

export async function run(): Promise<string> {
  const url = await recreateDatabase(DATABASE)
  const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  const emails = await seedBenchUsers(url, passwordHash, 300)
  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off' })
  // APP_URL is left to its default, http://localhost:<port>: the origin the passkeys answer for.
  const origin = server.url.replace('127.0.0.1', 'localhost')
  const api = (path: string) => `${server.url}/api${path}`
  try {
    console.log('registering one passkey per worker...')
    const authenticator = new SoftwareAuthenticator(origin)
    for (let worker = 0; worker < WORKERS; worker++) {
      const session = await signIn(server.url, emails[worker]!, PASSWORD)
      const auth = { authorization: `Bearer ${session.accessToken}`, 'x-csrf-token': session.csrfToken }
      const options = await post<PublicKeyCredentialCreationOptionsJSON>(api('/auth/passkeys/registration/options'), undefined, auth)
      const registered = await post(api('/auth/passkeys/registration'), { response: authenticator.create(options.data) }, auth)
      if (registered.status !== 201) throw new Error(`registering a passkey failed: ${registered.status}`)
    }
    const credentials = authenticator.credentials.map((credential) => credential.id)

    let next = WORKERS
    const passwordSignIn = async () => (await post(api('/auth/login'), { email: emails[next++ % emails.length], password: PASSWORD })).status === 200
    // Each worker signs in with its own passkey, so its counter goes up one sign-in at a time.
    const passkeySignIn = async (worker: number) => {
      const options = await post<PublicKeyCredentialRequestOptionsJSON>(api('/auth/passkeys/authentication/options'))
      const response: AuthenticationResponseJSON = authenticator.get(options.data, { credentialId: credentials[worker]! })
      return (await post(api('/auth/passkeys/authentication'), { response })).status === 200
    }

    await closedLoop(WARM_UP_SECONDS, passwordSignIn)
    await closedLoop(WARM_UP_SECONDS, passkeySignIn)
    const totals = {
      password: { rate: 0, failures: 0, latencies: [] as number[], cpuMs: 0, completed: 0 },
      passkey: { rate: 0, failures: 0, latencies: [] as number[], cpuMs: 0, completed: 0 },
    }
    const pid = server.child.pid!
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`round ${round + 1} of ${ROUNDS}...`)
      for (const [name, once] of [
        ['password', passwordSignIn],
        ['passkey', passkeySignIn],
      ] as const) {
        const cpuBefore = processCpuMs(pid)
        const measure = await closedLoop(SECONDS / ROUNDS, once)
        // Sign-ins still in the server's queue when the turn ends are finished within the pause.
        await new Promise((resolve) => setTimeout(resolve, 1000))
        totals[name].cpuMs += processCpuMs(pid) - cpuBefore
        totals[name].completed += measure.completed
        totals[name].rate += measure.perSecond / ROUNDS
        totals[name].failures += measure.failures
        totals[name].latencies.push(...measure.latencies)
        await new Promise((resolve) => setTimeout(resolve, 1000))
      }
    }
    const { password, passkey } = totals
    const cpuPerSignIn = (m: typeof password) => m.cpuMs / Math.max(1, m.completed)
    const row = (label: string, m: typeof password) =>
      `| ${label} | ${fmt(m.rate, 1)} | ${fmt(cpuPerSignIn(m), 2)} | ${fmt(percentile(m.latencies, 50), 1)} / ${fmt(percentile(m.latencies, 99), 1)} | ${m.failures} |`
    return [
      '# Passkey sign-in benchmark',
      '',
      `Run by \`npm run bench -- passkeys\` on ${new Date().toISOString().slice(0, 10)}: ${machineLine()}.`,
      'PostgreSQL on the same machine; the server in its own process (`src/server/main.ts`, RATE_LIMIT=off);',
      `the load in the benchmark process: ${WORKERS} workers, each starting its next sign-in when the last one answered;`,
      `${SECONDS} s per kind, in ${ROUNDS} alternating turns after ${WARM_UP_SECONDS} s of warm-up each.`,
      '',
      '| Sign-in | Completed sign-ins/s | Server CPU per sign-in, ms | Latency p50 / p99, ms | Failed |',
      '| --- | --- | --- | --- | --- |',
      row('Password (`POST /auth/login`, one Argon2id verification)', password),
      row('Passkey (`POST /auth/passkeys/authentication/options`, then `POST /auth/passkeys/authentication`)', passkey),
      '',
      `A passkey sign-in completes **${fmt(passkey.rate / password.rate, 1)} times** as many sign-ins per second as a password sign-in, and costs the server`,
      `**${fmt(cpuPerSignIn(password) / cpuPerSignIn(passkey), 1)} times** less CPU time (the server's own CPU time, read from /proc, divided by the sign-ins completed).`,
      `Machine load average at the end of the run (other work on this shared machine): ${os
        .loadavg()
        .map((n) => fmt(n, 1))
        .join(', ')}.`,
      '',
      '## What the numbers say',
      '',
      '- A password sign-in is bound by Argon2id (19 MiB, t=2): the server runs one hash per core and',
      '  queues the rest (docs/benchmarks/auth.md). A passkey sign-in hashes no password: it is two',
      '  requests, a challenge written and then used up (deleted), one ECDSA P-256 signature checked,',
      '  the counter updated and the session started, so its cost is the database round trips and the',
      '  JSON, and it counts two HTTP requests where the password counts one.',
      '- The signatures are made in the benchmark process (node:crypto), on the same two cores as the',
      '  server and PostgreSQL: the passkey rate is a floor for the server alone.',
      '- Other work on this shared machine during the run (other builds and test suites) lowers both',
      '  rates; the server CPU time per sign-in is the figure least moved by it.',
    ].join('\n')
  } finally {
    await server.stop()
    await dropDatabase(DATABASE)
  }
}
