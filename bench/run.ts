/**
 * `npm run bench [-- <name> ...]`: runs the benchmarks (all by default) against PostgreSQL and
 * writes each one's results to docs/benchmarks/<name>.md. Timings live here, never in tests.
 *
 *   auth   sign-in throughput against the raw hasher, refresh rate, /auth/me latency, memory
 *   lists  user list, search, activity logs and statistics at 1M users / 10M activity entries
 *   web    bundle sizes of the sign-in page and of the whole app
 *   load   a few hundred concurrent mixed requests for minutes: no 5xx, flat memory
 *   enumeration  answer times of failed sign-ins: unknown address, wrong password, unusable account
 *   peers  the same work on Better Auth (sign-in, session check, sign-out, user search), taking turns
 *   two-factor  the second sign-in step's server CPU against a refresh; sign-in without two-factor against the hasher
 *   sessions  the signed-in devices list of an account with 100 sessions, and the new-sign-in notice's query
 *   passkeys  passkey sign-ins per second beside password sign-ins
 *   oidc   Sign in with Accounts: refresh grants and code exchanges per second, UserInfo latency, on PGlite and PostgreSQL
 *   import users:import of a million seed-application accounts per second and its memory; the first sign-in of an imported account
 *   scim   SCIM lookups by userName, externalId and e-mail, and a full read of 1,000,000 users (also part of lists)
 *   own-data  an account with 100,000 activity entries: its export's speed and the server's memory, then its deletion
 *   webhooks  deliveries a second to a local receiver, change-to-delivery latency at 200 changes a second, sign-in and /auth/me with and without ten endpoints
 *   automation  client credentials grants per second beside the product's refresh; an API-key call at 1,000 a second beside an admin's token
 *   federation  a provider sign-in's server CPU (callback + handoff, against a local upstream OpenID provider) beside a password sign-in's
 *
 * BENCH_DATABASE_URL names the PostgreSQL server (default: the local one); one that cannot be used is
 * said before any benchmark starts.
 */
import fs from 'node:fs'
import path from 'node:path'
import { benchDatabaseProblem } from './support/server'

const available = [
  'auth',
  'lists',
  'web',
  'load',
  'enumeration',
  'peers',
  'two-factor',
  'passkeys',
  'sessions',
  'oidc',
  'import',
  'own-data',
  'scim',
  'webhooks',
  'automation',
  'federation',
] as const
type BenchName = (typeof available)[number]

const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('-'))
const names = (requested.length > 0 ? requested : [...available]) as BenchName[]
for (const name of names) {
  if (!available.includes(name)) {
    console.error(`Unknown benchmark "${name}". Available: ${available.join(', ')}`)
    process.exit(2)
  }
}

// Every benchmark but the bundle sizes makes databases of its own on a PostgreSQL server: one that
// cannot be used is said before any starts, instead of a connection error's stack.
const needsNoDatabase: BenchName[] = ['web']
if (names.some((name) => !needsNoDatabase.includes(name))) {
  const problem = await benchDatabaseProblem()
  if (problem) {
    console.error(
      `Cannot run the benchmarks: ${problem}\n` +
        'They make databases of their own on a PostgreSQL server (BENCH_DATABASE_URL, by default postgres://postgres@127.0.0.1:5432/postgres), ' +
        'as a user who may create databases. `npm run bench -- web` needs none.',
    )
    process.exit(1)
  }
}

for (const name of names) {
  // A benchmark is bench/<name>.ts, or bench/<name>/index.ts when it needs files of its own.
  const file = [path.join(import.meta.dirname, `${name}.ts`), path.join(import.meta.dirname, name, 'index.ts')].find((candidate) => fs.existsSync(candidate))
  if (!file) {
    console.log(`(benchmark ${name} not present yet)`)
    continue
  }
  console.log(`\n=== benchmark: ${name}`)
  const module = (await import(file)) as { run: () => Promise<string> }
  const report = await module.run()
  const out = path.join(import.meta.dirname, '..', 'docs', 'benchmarks', `${name}.md`)
  fs.mkdirSync(path.dirname(out), { recursive: true })
  fs.writeFileSync(out, report.trimEnd() + '\n')
  console.log(`\nwritten to ${path.relative(process.cwd(), out)}`)
}
