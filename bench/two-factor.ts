import os from 'node:os'
import { hash, verify } from '@node-rs/argon2'
import autocannon from 'autocannon'
import { generateSync } from 'otplib'
import pLimit from 'p-limit'
import { seedBenchUsers, signIn, signInRequest } from './support/accounts'
import { dropDatabase, machineLine, processCpuMs, recreateDatabase, startServer } from './support/server'

/**
 * Two-factor sign-in on PostgreSQL, the server in its own process:
 *   - the server CPU of a second step (a TOTP code, a recovery code) against a refresh, the request
 *     of about its size (target: under 1 ms more, no second Argon2id hash);
 *   - sign-in throughput of accounts without two-factor against the hasher alone, taking turns in
 *     this one run, as `auth.ts` measures it (target: the share auth.md records, within noise).
 * CPU is read from /proc/<pid>/stat around a fixed number of requests, 8 at a time.
 */
const DATABASE = 'accounts_bench_two_factor'
const PASSWORD = 'Bench-Password-42!'
/** Accounts with two-factor on; each takes one TOTP step (no replay) and one recovery code per pass. */
const MFA_USERS = 300
const PLAIN_USERS = 100
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const ROUNDS = 2

interface Json {
  data: Record<string, unknown>
}

async function post(base: string, path: string, body: unknown, session?: { accessToken: string; csrfToken: string }): Promise<{ status: number; json: Json }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (session) Object.assign(headers, { authorization: `Bearer ${session.accessToken}`, 'x-csrf-token': session.csrfToken })
  const response = await fetch(`${base}/api${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
  return { status: response.status, json: (await response.json()) as Json }
}

/** Runs `count` calls, `concurrency` at a time, and answers the server's CPU per call, ms. */
async function cpuPerCall(pid: number, count: number, call: (i: number) => Promise<number>): Promise<{ cpuMs: number; failures: number }> {
  const limit = pLimit(8)
  const before = processCpuMs(pid)
  const statuses = await Promise.all(Array.from({ length: count }, (_, i) => limit(() => call(i))))
  const after = processCpuMs(pid)
  return { cpuMs: (after - before) / count, failures: statuses.filter((status) => status !== 200).length }
}

async function hasherRate(passwordHash: string, seconds: number): Promise<number> {
  const limit = pLimit(os.availableParallelism())
  const start = Date.now()
  let done = 0
  const worker = async () => {
    while (Date.now() < start + seconds * 1000) {
      await limit(() => verify(passwordHash, PASSWORD))
      done++
    }
  }
  await Promise.all(Array.from({ length: os.availableParallelism() * 2 }, worker))
  return (done * 1000) / (Date.now() - start)
}

function signInRate(base: string, emails: string[], seconds: number): Promise<number> {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: `${base}/api/auth/login`,
        connections: 16,
        duration: seconds,
        timeout: 30,
        requests: [signInRequest(emails, PASSWORD)],
      },
      (error, result) => (error ? reject(error) : resolve(result['2xx'] / result.duration)),
    ),
  )
}

const fmt = (n: number, digits = 2) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

export async function run(): Promise<string> {
  const url = await recreateDatabase(DATABASE)
  const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  const emails = await seedBenchUsers(url, passwordHash, MFA_USERS + PLAIN_USERS)
  const mfaEmails = emails.slice(0, MFA_USERS)
  const plainEmails = emails.slice(MFA_USERS)
  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' })
  const pid = server.child.pid!
  try {
    console.log('turning two-factor on...')
    const few = pLimit(8)
    const accounts = await Promise.all(
      mfaEmails.map((email) =>
        few(async () => {
          const session = await signIn(server.url, email, PASSWORD)
          const setup = await post(server.url, '/auth/mfa/totp/setup', { password: PASSWORD }, session)
          if (setup.status !== 200) throw new Error(`setup failed: ${JSON.stringify(setup.json)}`)
          const secret = setup.json.data.secret as string
          const enabled = await post(server.url, '/auth/mfa/totp/enable', { code: generateSync({ secret }) }, session)
          if (enabled.status !== 200) throw new Error(`enable failed: ${JSON.stringify(enabled.json)}`)
          return { email, secret, recoveryCodes: enabled.json.data.recoveryCodes as string[] }
        }),
      ),
    )
    const refreshTokens = (await Promise.all(plainEmails.slice(0, 64).map((email) => signIn(server.url, email, PASSWORD)))).map((s) => s.refreshToken)
    /** Password steps, not measured: each second step below needs a fresh mfaToken. */
    const mfaTokens = () =>
      Promise.all(
        accounts.map((account) => few(async () => (await post(server.url, '/auth/login', { email: account.email, password: PASSWORD })).json.data.mfaToken as string)),
      )

    console.log('server CPU per request...')
    const results: Record<'refresh' | 'totp' | 'recovery', { cpuMs: number; failures: number }[]> = { refresh: [], totp: [], recovery: [] }
    for (let round = 0; round < ROUNDS; round++) {
      results.refresh.push(
        await cpuPerCall(pid, MFA_USERS, async (i) => {
          const answer = await post(server.url, '/auth/refresh-token', { refreshToken: refreshTokens[i % refreshTokens.length] })
          if (answer.status === 200) refreshTokens[i % refreshTokens.length] = answer.json.data.refreshToken as string
          return answer.status
        }),
      )
      // The next step's code (a phone 30 s fast is accepted): later than any code used before,
      // since rounds are a step apart.
      const totpTokens = await mfaTokens()
      const epoch = Math.floor(Date.now() / 1000) + 30
      results.totp.push(
        await cpuPerCall(pid, MFA_USERS, async (i) => {
          const code = generateSync({ secret: accounts[i]!.secret, epoch })
          return (await post(server.url, '/auth/login/mfa', { mfaToken: totpTokens[i], code })).status
        }),
      )
      const recoveryTokens = await mfaTokens()
      results.recovery.push(
        await cpuPerCall(
          pid,
          MFA_USERS,
          async (i) => (await post(server.url, '/auth/login/mfa', { mfaToken: recoveryTokens[i], recoveryCode: accounts[i]!.recoveryCodes[round] })).status,
        ),
      )
      // The next round's codes belong to a later step.
      if (round + 1 < ROUNDS) await new Promise((resolve) => setTimeout(resolve, 31_000 - (Date.now() % 30_000)))
    }

    console.log('sign-in without two-factor, taking turns with the hasher alone...')
    await signInRate(server.url, plainEmails, 2)
    let hasher = 0
    let plain = 0
    for (let round = 0; round < ROUNDS; round++) {
      hasher += (await hasherRate(passwordHash, SECONDS / ROUNDS)) / ROUNDS
      await new Promise((resolve) => setTimeout(resolve, 1000))
      plain += (await signInRate(server.url, plainEmails, SECONDS / ROUNDS)) / ROUNDS
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }

    const best = (list: { cpuMs: number }[]) => Math.min(...list.map((r) => r.cpuMs))
    const all = (list: { cpuMs: number }[]) => list.map((r) => fmt(r.cpuMs)).join(', ')
    const failures = Object.values(results)
      .flat()
      .reduce((sum, r) => sum + r.failures, 0)
    const beyond = Math.max(best(results.totp), best(results.recovery)) - best(results.refresh)
    const rows = [
      ['Refresh (the reference), server CPU per request, ms', all(results.refresh), '', ''],
      ['Second step with an app code, server CPU per request, ms', all(results.totp), '', ''],
      ['Second step with a recovery code, server CPU per request, ms', all(results.recovery), '', ''],
      ['Second step beyond a refresh (the dearer kind, best rounds), ms', fmt(beyond), '< 1', beyond < 1 ? 'met' : 'NOT met'],
      ['Failed calls among the measured ones', String(failures), '0', ''],
      ['Password hasher alone (Argon2id 19 MiB, t=2, p=1), verifications/s', fmt(hasher, 1), 'reference', ''],
      [
        'Sign-in without two-factor, successful answers/s (16 connections)',
        fmt(plain, 1),
        'as in auth.md (85.4% of the hasher there)',
        `${fmt((plain / hasher) * 100, 1)}%`,
      ],
    ]
    return [
      '# Two-factor sign-in benchmark',
      '',
      `Run by \`npm run bench -- two-factor\` on ${new Date().toISOString().slice(0, 10)}: ${machineLine()}.`,
      'PostgreSQL on the same machine; the server in its own process (`src/server/main.ts`, RATE_LIMIT=off, LOG_LEVEL=warn).',
      `${MFA_USERS} accounts with two-factor on, ${PLAIN_USERS} without; ${ROUNDS} rounds; load average at the end ${fmt(os.loadavg()[0]!, 1)}`,
      '(other work shares this machine: compare kinds within one run, not runs with each other).',
      '',
      '| Measure | Result | Target | |',
      '| --- | --- | --- | --- |',
      ...rows.map((row) => `| ${row.join(' | ')} |`),
      '',
      '## How it is measured',
      '',
      `- Server CPU per request: user and system time of the server process (\`/proc/<pid>/stat\`, 10 ms`,
      `  ticks) around ${MFA_USERS} requests of one kind, 8 at a time, divided by their number. The`,
      '  mfaTokens are made by password steps before each window (each costs an Argon2id hash, not',
      '  counted); each account then takes one second step. A refresh (one rotation of a refresh',
      '  token) is the request of about the same size: a token looked up by its hash, a session',
      '  written, tokens signed.',
      '- A second step is the challenge read, the account row, the authenticator secret opened',
      '  (AES-256-GCM) and three HMAC-SHA-1 codes computed, or one SHA-256 of a recovery code; then',
      '  one transaction that uses the challenge, claims the step or the code and starts the session.',
      '  No password is hashed.',
      '- Sign-in without two-factor: autocannon, 16 connections, taking turns with the hasher alone',
      '  in this process (one verification per core at a time), as `bench/auth.ts` does; its share of',
      "  the hasher is the figure to compare with auth.md's, since the hasher's own speed varies by",
      '  half on this shared machine.',
    ].join('\n')
  } finally {
    await server.stop()
    await dropDatabase(DATABASE)
  }
}
