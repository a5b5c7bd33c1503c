import type autocannon from 'autocannon'
import { cannon } from '../support/cannon'
import { type OpenLoopResult, openLoop } from '../support/open-loop'
import { percentile } from '../support/percentile'
import { type CpuSample, cpuPerAnswer, cpuSnapshot } from './cpu'
import { type Request, type Session, type System, send } from './systems'

/**
 * The measures, each run on every system in turns (round after round, a few seconds each), so a
 * slower stretch of this shared machine weighs on all of them alike: the ratios hold even where
 * the absolute numbers drift between runs.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** autocannon adds headers (content-length) to the objects it is given: each request gets copies. */
const forCannon = (request: Request) => ({ ...request, headers: { ...request.headers } })

/** A load, with the CPU its system's server and database backends spent per successful answer. */
async function withCpu(system: System, load: () => Promise<autocannon.Result>): Promise<{ result: autocannon.Result; cpu: CpuSample }> {
  const before = await cpuSnapshot(system)
  const result = await load()
  const after = await cpuSnapshot(system)
  return { result, cpu: cpuPerAnswer(before, after, result['2xx']) }
}

const meanCpu = (samples: CpuSample[]): CpuSample => ({ server: mean(samples.map((s) => s.server)), database: mean(samples.map((s) => s.database)) })

/** Runs `measure` on each system in turn, `rounds` times, the order reversed every other round. */
async function inTurns<T>(systems: System[], rounds: number, measure: (system: System) => Promise<T>): Promise<Map<System, T[]>> {
  const results = new Map<System, T[]>(systems.map((system) => [system, []]))
  for (let round = 0; round < rounds; round++) {
    for (const system of round % 2 === 0 ? systems : [...systems].reverse()) {
      results.get(system)!.push(await measure(system))
      // When a load ends the server may still be busy with what it took in; the next turn must not pay for it.
      await pause(1000)
    }
  }
  return results
}

export interface SignInResult {
  perSecond: number
  cpu: CpuSample
  p50: number
  p99: number
  failures: number
}

/** Successful sign-ins per second, 16 connections, each request a bench account in turn. */
export async function signInThroughput(systems: System[], emails: string[], password: string, seconds: number, rounds: number): Promise<Map<System, SignInResult>> {
  let next = 0
  const load = (system: System, duration: number) =>
    cannon({
      url: system.url,
      connections: 16,
      duration,
      timeout: 30,
      requests: [{ setupRequest: (request) => ({ ...request, ...forCannon(system.signInRequest(emails[next++ % emails.length]!, password)) }) }],
    })
  for (const system of systems) await load(system, 3)
  const runs = await inTurns(systems, rounds, (system) => withCpu(system, () => load(system, seconds / rounds)))
  return new Map(
    [...runs]
      .map(([system, turns]) => [system, turns.map((turn) => turn.result), meanCpu(turns.map((turn) => turn.cpu))] as const)
      .map(([system, parts, cpu]) => [
        system,
        {
          perSecond: mean(parts.map((part) => part['2xx'] / part.duration)),
          cpu,
          p50: Math.max(...parts.map((part) => part.latency.p50)),
          p99: Math.max(...parts.map((part) => part.latency.p99)),
          failures: sum(parts.map((part) => part.non2xx + part.errors + part.timeouts)),
        },
      ]),
  )
}

/**
 * Sessions signed in afresh for each turn: a client keeps the cookies each answer sets, which
 * this one does not, so a cookie cache older than its `maxAge` would send every request to the
 * database and set a new cookie. Fresh sessions keep every turn within the cache's life.
 */
export type FreshSessions = (system: System) => Promise<Session[]>

/** The session check sent evenly at `rate` per second (bench/support/open-loop.ts); each run's result. */
export async function sessionCheckAtRate(
  systems: System[],
  sessions: FreshSessions,
  rate: number,
  seconds: number,
  rounds: number,
): Promise<Map<System, OpenLoopResult[]>> {
  const load = async (system: System, duration: number) => {
    const own = await sessions(system)
    return openLoop({ url: system.url, rate, seconds: duration, connections: 20, request: (n) => system.sessionCheck(own[n % own.length]!) })
  }
  for (const system of systems) await load(system, 3)
  return inTurns(systems, rounds, (system) => load(system, seconds))
}

export interface FullSpeedResult {
  perSecond: number
  cpu: CpuSample
  p50: number
  p99: number
  failures: number
}

/** The session check as fast as it is answered: 20 connections, each with a session of its own. */
export async function sessionCheckFullSpeed(systems: System[], sessions: FreshSessions, seconds: number, rounds: number): Promise<Map<System, FullSpeedResult>> {
  const load = (system: System, own: Session[], duration: number) => {
    let next = 0
    return cannon({
      url: system.url,
      connections: 20,
      duration,
      requests: [
        {
          setupRequest: (request, context) => {
            const c = context as { session?: Session }
            c.session ??= own[next++ % own.length]!
            return { ...request, ...forCannon(system.sessionCheck(c.session)) }
          },
        },
      ],
    })
  }
  for (const system of systems) await load(system, await sessions(system), 2)
  const runs = await inTurns(systems, rounds, async (system) => {
    const own = await sessions(system)
    return withCpu(system, () => load(system, own, seconds / rounds))
  })
  return new Map(
    [...runs]
      .map(([system, turns]) => [system, turns.map((turn) => turn.result), meanCpu(turns.map((turn) => turn.cpu))] as const)
      .map(([system, parts, cpu]) => [
        system,
        {
          perSecond: mean(parts.map((part) => part['2xx'] / part.duration)),
          cpu,
          p50: median(parts.map((part) => part.latency.p50)),
          p99: median(parts.map((part) => part.latency.p99)),
          failures: sum(parts.map((part) => part.non2xx + part.errors + part.timeouts)),
        },
      ]),
  )
}

export interface SignOutResult {
  /** Sign-outs answered 2xx. */
  signedOut: number
  /** The session check let the session through right after sign-in (it must, every time). */
  acceptedBefore: number
  /** ... and right after sign-out (it must not, for a sign-out to take effect at once). */
  acceptedAfter: number
  attempts: number
  signOutMs: number[]
  checkAfterMs: number[]
}

/**
 * Sign in, check the session is let through, sign out, and check the very same session again
 * with what the client held before signing out (its token, or its cookies): the correctness of a
 * sign-out as well as its time. The systems take turns request by request.
 */
export async function signOutAndRefusal(systems: System[], emails: string[], password: string, attempts: number): Promise<Map<System, SignOutResult>> {
  const results = new Map<System, SignOutResult>(
    systems.map((system) => [system, { signedOut: 0, acceptedBefore: 0, acceptedAfter: 0, attempts, signOutMs: [], checkAfterMs: [] }]),
  )
  for (let i = 0; i < attempts; i++) {
    for (const system of i % 2 === 0 ? systems : [...systems].reverse()) {
      const result = results.get(system)!
      const session = await system.signIn(emails[i % emails.length]!, password)
      const before = await send(system.url, system.sessionCheck(session))
      if (system.accepted(before.status, before.body)) result.acceptedBefore++
      const out = await send(system.url, session.signOut)
      if (out.status >= 200 && out.status < 300) result.signedOut++
      result.signOutMs.push(out.ms)
      const after = await send(system.url, system.sessionCheck(session))
      if (system.accepted(after.status, after.body)) result.acceptedAfter++
      result.checkAfterMs.push(after.ms)
    }
  }
  return results
}

export interface SearchTiming {
  term: string
  /** Per system: the time of every repetition, in order. */
  ms: Map<System, number[]>
  /** Per system: the first answer's users (e-mail addresses) and total. */
  answer: Map<System, { emails: string[]; total: number }>
  failures: number
}

/**
 * The admin's user search, one request at a time as one admin would send them, every term on
 * every system, `repeats` times; the systems take turns request by request.
 */
export async function searches(systems: System[], admins: Map<System, Session>, terms: string[], repeats: number): Promise<SearchTiming[]> {
  const timings: SearchTiming[] = terms.map((term) => ({ term, ms: new Map(systems.map((system) => [system, []])), answer: new Map(), failures: 0 }))
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const timing of timings) {
      for (const system of repeat % 2 === 0 ? systems : [...systems].reverse()) {
        const answer = await send(system.url, system.search(admins.get(system)!, timing.term))
        if (answer.status !== 200) {
          timing.failures++
          continue
        }
        timing.ms.get(system)!.push(answer.ms)
        if (!timing.answer.has(system)) timing.answer.set(system, system.searchAnswer(answer.body))
      }
    }
  }
  return timings
}

export const sum = (values: number[]) => values.reduce((total, value) => total + value, 0)
export const mean = (values: number[]) => (values.length === 0 ? NaN : sum(values) / values.length)
export { percentile }
export const median = (values: number[]) => percentile(values, 50)
