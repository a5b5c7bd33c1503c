import os from 'node:os'
import { hash } from '@node-rs/argon2'
import { machineLine } from '../support/server'
import { COOKIE_CACHE_SECONDS } from './better-auth'
import { createPeerDatabases, dropPeerDatabases } from './databases'
import { searches, sessionCheckAtRate, sessionCheckFullSpeed, signInThroughput, signOutAndRefusal } from './measures'
import { betterAuthStatements, checkPlans, ourStatements } from './plans'
import { report } from './report'
import { type Session, type System, startBetterAuth, startOurs } from './systems'

/**
 * `npm run bench -- peers`: the product side by side with Better Auth (its e-mail and password
 * sign-in and admin plugin), the same work on the same machine in one run, the systems taking
 * turns: sign-ins per second, the session check at 1,000 per second and at full speed, sign-out
 * and the refusal of the old session, and the admin's user search over the same users.
 *
 * PEERS_USERS (default 1,000,000) users in both databases; BENCH_SECONDS (default 20) per
 * throughput measure; PEERS_REPEATS (default 15) runs of every search.
 */
const USERS = Number(process.env.PEERS_USERS ?? 1_000_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)
const REPEATS = Number(process.env.PEERS_REPEATS ?? 15)
const SIGN_OUTS = Number(process.env.PEERS_SIGN_OUTS ?? 50)
const BENCH_USERS = 300
const PASSWORD = 'Bench-Password-42!'
export const SHORT_TERMS = ['jo', 'e', 'qz']
export const LONG_TERMS = ['john', 'smith', 'garcia', 'example.org', 'james.smith1', 'nomatchxyz']

const loadAverage = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(', ')

export async function run(): Promise<string> {
  const log = (line: string) => console.log(line)
  const loadAtStart = loadAverage()
  const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  console.log(`seeding both databases with ${USERS.toLocaleString('en-US')} users...`)
  const started = Date.now()
  const databases = await createPeerDatabases({ users: USERS, benchUsers: BENCH_USERS, passwordHash, log })
  const seedSeconds = (Date.now() - started) / 1000

  const systems: System[] = []
  try {
    const ours = await startOurs(databases.ours)
    systems.push(ours)
    const betterAuth = await startBetterAuth(databases.betterAuth, { name: 'Better Auth' })
    systems.push(betterAuth)
    const joined = await startBetterAuth(databases.betterAuth, { name: 'Better Auth, joins on', joins: true })
    systems.push(joined)
    const cookieCache = await startBetterAuth(databases.betterAuth, { name: 'Better Auth, cookie cache', cookieCache: true })
    systems.push(cookieCache)

    console.log('sign-in throughput...')
    const signIns = await signInThroughput([ours, betterAuth], databases.emails, PASSWORD, SECONDS, 4)

    const sessions = (system: System) => Promise.all(databases.emails.slice(100, 120).map((email) => system.signIn(email, PASSWORD)))
    console.log('session check at 1,000 per second...')
    const atRate = await sessionCheckAtRate(systems, sessions, 1000, SECONDS / 2, 3)
    console.log('session check at full speed...')
    const fullSpeed = await sessionCheckFullSpeed(systems, sessions, SECONDS, 3)

    console.log('sign-out, then the old session...')
    const signOuts = await signOutAndRefusal([ours, betterAuth, cookieCache], databases.emails.slice(200), PASSWORD, SIGN_OUTS)

    console.log('user search...')
    const admins = new Map<System, Session>([
      [ours, await ours.signIn(databases.adminEmail, PASSWORD)],
      [betterAuth, await betterAuth.signIn(databases.adminEmail, PASSWORD)],
    ])
    const terms = [...SHORT_TERMS, ...LONG_TERMS]
    const searched = await searches([ours, betterAuth], admins, terms, REPEATS)

    console.log('query plans under repetition...')
    const searchQuery = (term: string) => Object.fromEntries(new URLSearchParams(betterAuth.search(admins.get(betterAuth)!, term).path.split('?')[1]))
    const plans = [
      ...(await checkPlans(databases.ours, await ourStatements(databases.ours, terms))),
      ...(await checkPlans(
        databases.betterAuth,
        await betterAuthStatements(databases.betterAuth, terms, { email: databases.adminEmail, password: PASSWORD }, searchQuery),
      )),
    ]

    return report({
      machine: machineLine(),
      load: { start: loadAtStart, end: loadAverage() },
      users: USERS,
      seedSeconds,
      seconds: SECONDS,
      repeats: REPEATS,
      cookieCacheSeconds: COOKIE_CACHE_SECONDS,
      systems: { ours, betterAuth, joined, cookieCache },
      signIns,
      atRate,
      fullSpeed,
      signOuts,
      searched,
      shortTerms: SHORT_TERMS,
      plans,
    })
  } finally {
    for (const system of systems) await system.stop()
    await dropPeerDatabases()
  }
}
