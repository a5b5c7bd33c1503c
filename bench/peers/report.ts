import type { OpenLoopResult } from '../support/open-loop'
import { type FullSpeedResult, type SearchTiming, type SignInResult, type SignOutResult, median, percentile } from './measures'
import { COOKIE_CACHE_GIVES_UP, PLANS_NOTE, SEARCH_WORK, SESSION_CHECK_WORK, SIGN_IN_WORK, SIGN_OUT_WORK, WHY_BEHIND } from './explanations'
import type { PlanCheck } from './plans'
import type { System } from './systems'

export interface PeersResults {
  machine: string
  /** The machine's load average (1, 5, 15 min) when the run started and ended. */
  load: { start: string; end: string }
  users: number
  seedSeconds: number
  seconds: number
  repeats: number
  cookieCacheSeconds: number
  systems: { ours: System; betterAuth: System; joined: System; cookieCache: System }
  signIns: Map<System, SignInResult>
  atRate: Map<System, OpenLoopResult[]>
  fullSpeed: Map<System, FullSpeedResult>
  signOuts: Map<System, SignOutResult>
  searched: SearchTiming[]
  shortTerms: string[]
  plans: PlanCheck[]
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
const ms = (n: number) => fmt(n, n < 10 ? 2 : 1)
/** How many times better Accounts does: for a rate ours/theirs, for a time theirs/ours. */
const faster = (ours: number, theirs: number) => `${fmt(ours / theirs, 2)}×`
const slower = (ours: number, theirs: number) => `${fmt(theirs / ours, 2)}×`
const table = (header: string[], rows: string[][]) => [
  `| ${header.join(' | ')} |`,
  `| ${header.map(() => '---').join(' | ')} |`,
  ...rows.map((row) => `| ${row.join(' | ')} |`),
]

/** The median run of an open-loop series, by p99 (as bench/auth.ts judges GET /auth/me). */
function medianRun(runs: OpenLoopResult[]): OpenLoopResult {
  return [...runs].sort((a, b) => a.latency.p99 - b.latency.p99)[Math.floor(runs.length / 2)]!
}

export function report(r: PeersResults): string {
  const { ours, betterAuth, joined, cookieCache } = r.systems
  const sessionSystems = [ours, betterAuth, joined, cookieCache]
  const signInOurs = r.signIns.get(ours)!
  const signInTheirs = r.signIns.get(betterAuth)!

  const rateRows = sessionSystems.map((system) => {
    const runs = r.atRate.get(system)!
    const run = medianRun(runs)
    const reference = medianRun(r.atRate.get(ours)!)
    const failures = runs.reduce((total, one) => total + one.non2xx + one.errors, 0)
    return [
      system.name,
      fmt(run.answeredPerSecond),
      `${ms(run.latency.p50)} / ${ms(run.latency.p99)} / ${ms(run.latency.p999)}`,
      runs.map((one) => ms(one.latency.p99)).join(', '),
      system === ours ? 'reference' : `${slower(reference.latency.p50, run.latency.p50)} / ${slower(reference.latency.p99, run.latency.p99)}`,
      String(failures),
    ]
  })
  const fullRows = sessionSystems.map((system) => {
    const result = r.fullSpeed.get(system)!
    const reference = r.fullSpeed.get(ours)!
    return [
      system.name,
      fmt(result.perSecond),
      `${result.p50} / ${result.p99}`,
      system === ours ? 'reference' : faster(reference.perSecond, result.perSecond),
      ms(result.cpu.server),
      ms(result.cpu.database),
      String(result.failures),
    ]
  })
  const signOutRows = [...r.signOuts].map(([system, result]) => [
    system.name,
    `${ms(median(result.signOutMs))} / ${ms(percentile(result.signOutMs, 95))}`,
    `${result.acceptedBefore} of ${result.attempts}`,
    `${result.signedOut} of ${result.attempts}`,
    `${result.attempts - result.acceptedAfter} of ${result.attempts}`,
  ])

  const searchRows = r.searched.map((timing) => {
    const o = timing.ms.get(ours)!
    const t = timing.ms.get(betterAuth)!
    const a = timing.answer.get(ours)
    const b = timing.answer.get(betterAuth)
    const samePage = a && b ? (a.emails.join() === b.emails.join() ? 'same' : 'DIFFERENT') : 'no answer'
    return [
      `"${timing.term}"`,
      r.shortTerms.includes(timing.term) ? 'short' : 'long',
      `${ms(median(o))} / ${ms(percentile(o, 95))}`,
      `${ms(median(t))} / ${ms(percentile(t, 95))}`,
      slower(percentile(o, 95), percentile(t, 95)),
      `${a ? fmt(a.total) : '-'} / ${b ? fmt(b.total) : '-'}`,
      samePage,
      String(timing.failures),
    ]
  })
  const groupP95 = (system: System, short: boolean) =>
    percentile(
      r.searched.filter((timing) => r.shortTerms.includes(timing.term) === short).flatMap((timing) => timing.ms.get(system)!),
      95,
    )

  const planRows = r.plans.map((plan) => [
    plan.system,
    plan.what,
    plan.named ? 'named' : 'unnamed',
    `\`${plan.customPlan}\``,
    plan.namedPlan === plan.customPlan ? 'same' : `\`${plan.namedPlan}\``,
    plan.namedIsGeneric ? 'generic' : 'custom',
    `${ms(plan.unnamedMs)} / ${ms(plan.namedMs)}`,
  ])
  const statementsOf = (system: string, what: string) => r.plans.filter((plan) => plan.system === system && plan.what === what).length

  // Each summary row: the measure, both results, and how many times better Accounts does (with
  // the key of the reason shown when that is below 1).
  const signOutP50 = (system: System) => median(r.signOuts.get(system)!.signOutMs)
  const ourFull = r.fullSpeed.get(ours)!
  const rows: { cells: string[]; ratio?: number; why?: string }[] = [
    row('Sign-ins per second (16 connections)', fmt(signInOurs.perSecond, 1), fmt(signInTheirs.perSecond, 1), signInOurs.perSecond / signInTheirs.perSecond, 'signIn'),
    row(
      'Session check at 1,000/s, p99 (median of 3 runs), ms',
      ms(medianRun(r.atRate.get(ours)!).latency.p99),
      ms(medianRun(r.atRate.get(betterAuth)!).latency.p99),
      medianRun(r.atRate.get(betterAuth)!).latency.p99 / medianRun(r.atRate.get(ours)!).latency.p99,
    ),
    row(
      'Session check at full speed, answers/s',
      fmt(ourFull.perSecond),
      fmt(r.fullSpeed.get(betterAuth)!.perSecond),
      ourFull.perSecond / r.fullSpeed.get(betterAuth)!.perSecond,
    ),
    row(
      '... against Better Auth with its cookie cache, answers/s',
      fmt(ourFull.perSecond),
      fmt(r.fullSpeed.get(cookieCache)!.perSecond),
      ourFull.perSecond / r.fullSpeed.get(cookieCache)!.perSecond,
      'cookieCache',
    ),
    row('Sign-out p50, ms', ms(signOutP50(ours)), ms(signOutP50(betterAuth)), signOutP50(betterAuth) / signOutP50(ours), 'signOut'),
    row(
      'Old session refused right after sign-out',
      refused(r.signOuts.get(ours)!),
      `${refused(r.signOuts.get(betterAuth)!)} (cookie cache: ${refused(r.signOuts.get(cookieCache)!)})`,
    ),
    row('User search p95, short terms, ms', ms(groupP95(ours, true)), ms(groupP95(betterAuth, true)), groupP95(betterAuth, true) / groupP95(ours, true), 'searchShort'),
    row('User search p95, long terms, ms', ms(groupP95(ours, false)), ms(groupP95(betterAuth, false)), groupP95(betterAuth, false) / groupP95(ours, false), 'searchLong'),
  ]
  const summary = table(
    ['Measure', ours.name, betterAuth.name, 'Accounts better by'],
    rows.map((one) => one.cells),
  )
  const behind = rows.filter((one) => one.ratio !== undefined && one.ratio < 1)
  const behindLines =
    behind.length === 0
      ? ['Accounts is ahead on every measure of this run.']
      : [
          'Where Accounts is behind in this run:',
          '',
          ...behind.map(
            (one) => `- ${one.cells[0]}: ${one.why ? WHY_BEHIND[one.why] : 'within the noise of this shared machine (compare the runs in the sections below).'}`,
          ),
        ]
  const differingPlans = r.plans.filter((plan) => plan.system === 'Accounts' && !plan.named && plan.namedPlan !== plan.customPlan).map((plan) => plan.what)

  return [
    '# Side by side: Accounts and Better Auth',
    '',
    `Run by \`npm run bench -- peers\` on ${new Date().toISOString().slice(0, 10)}: ${r.machine}.`,
    `Both on the same PostgreSQL server, each in a database of its own holding the same ${fmt(r.users)} users (plus 301 bench`,
    `accounts; seeding and copying took ${fmt(r.seedSeconds)} s); each a real HTTP server in its own process, driven by the same`,
    'client in the benchmark process; the systems take turns within every measure.',
    `Load average (1, 5, 15 min) at the start and the end: ${r.load.start}; ${r.load.end}. Other work shares the two cores:`,
    'the absolute numbers follow it, the ratios (taken in turns) much less.',
    '',
    'Ratios read "how many times better Accounts does": above 1 Accounts is ahead, below 1 behind.',
    '',
    ...summary,
    '',
    ...behindLines,
    '',
    '## Sign-in',
    '',
    ...table(
      ['System', 'Sign-ins/s', 'p50 / p99 (slowest round), ms', 'Server CPU per sign-in, ms', "Its PostgreSQL backends' CPU per sign-in, ms", 'Failures'],
      [ours, betterAuth].map((system) => {
        const result = r.signIns.get(system)!
        return [system.name, fmt(result.perSecond, 1), `${result.p50} / ${result.p99}`, ms(result.cpu.server), ms(result.cpu.database), String(result.failures)]
      }),
    ),
    '',
    `${fmt(r.seconds)} s each, in four turns; CPU per sign-in from /proc: the server process (its hashing threads included) and`,
    'the PostgreSQL backends connected to its database.',
    '',
    ...SIGN_IN_WORK,
    '',
    '## Session check',
    '',
    `Sent evenly at 1,000 per second (\`bench/support/open-loop.ts\`, latency from when each request was due), ${fmt(r.seconds / 2)} s per run, three runs each:`,
    '',
    ...table(['System', 'Answered/s (median run)', 'p50 / p99 / p99.9 (median run), ms', 'p99 of each run, ms', 'Accounts better by (p50 / p99)', 'Failures'], rateRows),
    '',
    `At full speed (autocannon, 20 connections each with a session of its own), three turns of ${fmt(r.seconds / 3, 1)} s each:`,
    '',
    ...table(
      [
        'System',
        'Answers/s',
        'p50 / p99 (median turn), ms',
        'Accounts better by',
        'Server CPU per answer, ms',
        "Its PostgreSQL backends' CPU per answer, ms",
        'Failures',
      ],
      fullRows,
    ),
    '',
    'Every turn of both runs signs in 20 sessions afresh (outside its timing): this client does not keep the cookies that',
    'answers set, so a cookie cache older than its `maxAge` would otherwise send each request to the database.',
    '',
    'At 1,000 a second a system whose answers take more than the two cores can give that rate falls behind: requests',
    'queue and their latency grows through the run (see its "Answered/s"). Every answer of every run was checked to be',
    "a 2xx; the session check's answer itself is checked in the sign-out section.",
    '',
    ...SESSION_CHECK_WORK,
    '',
    '## Sign-out',
    '',
    'Sign in, check the session, sign out, and check the same session again with what the client held before',
    'signing out (its access token; its cookies). The systems take turns request by request.',
    '',
    ...table(['System', 'Sign-out p50 / p95, ms', 'Session let through before', 'Signed out', 'Old session refused after'], signOutRows),
    '',
    ...SIGN_OUT_WORK,
    '',
    ...COOKIE_CACHE_GIVES_UP(r.cookieCacheSeconds),
    '',
    '## User search',
    '',
    `The admin's search, page 1 of 10 users, newest first; ${r.repeats} runs of each term on each system, one request at a time,`,
    'the systems taking turns request by request. "Same page" compares the ten users each answered; totals are',
    "Accounts' (exact up to 1,000, the planner's estimate beyond: docs/decisions/0103) and Better Auth's (an exact count).",
    '',
    ...table(
      ['Term', 'Kind', `${ours.name} p50 / p95, ms`, `${betterAuth.name} p50 / p95, ms`, 'Accounts better by (p95)', 'Totals', 'Same page', 'Failures'],
      searchRows,
    ),
    '',
    ...SEARCH_WORK,
    '',
    '## Query plans under repetition',
    '',
    'Every statement each system sends for these requests, run 10 times as the system sends it and 10 times as a',
    'named statement on one connection. "As sent": named statements may switch to a generic plan after five runs;',
    'unnamed ones are planned with their values every time. The plan after 10 named runs shows what a named',
    'statement would settle on; the times are the median of the last 5 runs, ms.',
    '',
    ...table(['System', 'Request', 'As sent', 'Plan with its values', 'Plan after 10 named runs', 'Named plan is', 'Unnamed / named, ms'], planRows),
    '',
    ...PLANS_NOTE,
    differingPlans.length > 0 ? `In this run: ${differingPlans.join(', ')}.` : "In this run, none of the product's searches would.",
    '',
    `Statements per request, as recorded: the session check, Accounts ${statementsOf('Accounts', 'session check')}, Better Auth ${statementsOf('Better Auth', 'session check')};`,
    `a search beyond it, Accounts ${statementsOf('Accounts', `search "${r.searched[0]!.term}"`)} ("${r.searched[0]!.term}"; a short term also costs an estimate), Better Auth ${statementsOf('Better Auth', `search "${r.searched[0]!.term}"`)}.`,
  ].join('\n')
}

function row(measure: string, ours: string, theirs: string, ratio?: number, why?: string) {
  return { cells: [measure, ours, theirs, ratio === undefined ? '' : `${fmt(ratio, 2)}×`], ratio, why }
}

const refused = (result: SignOutResult) => `${result.attempts - result.acceptedAfter} of ${result.attempts}`
