import { hash } from '@node-rs/argon2'
import { dropDatabase, machineLine, query, recreateDatabase, startServer } from './support/server'

/**
 * Can the time of an answer tell whether an address has an account? The product wants an unknown
 * address, a wrong password, and a wrong password on a suspended or unverified account answered
 * alike "within noise"; the checklist wants forgot-password and resend-verification to answer
 * every address alike. The tests prove equal work; this measures the answer times against the
 * real server on PostgreSQL, one request at a time, the cases shuffled together so that drift, and
 * whatever the server still does after an answer, hit them all alike.
 *
 * ENUMERATION_ROUNDS (default 600) requests per case.
 */
const DATABASE = 'accounts_bench_enumeration'
const PASSWORD = 'Enumeration-Bench-42!'
const WRONG = 'Not-The-Password-7!'
const ROUNDS = Number(process.env.ENUMERATION_ROUNDS ?? 600)
const WARM_UP = 20

interface Study {
  title: string
  path: string
  status: number
  /** What every answer said. */
  answer: string
  reference: string
  /** The request body for each case, made afresh for every request. */
  cases: Record<string, () => object>
  /** What each case costs the server while answering, as the tests prove it. */
  meaning: string[]
}

let unknownCounter = 0
const nobody = () => `nobody-${++unknownCounter}@bench.example`

const STUDIES: Study[] = [
  {
    title: 'Failed sign-ins',
    path: '/api/auth/login',
    status: 401,
    answer: '401 "Invalid credentials"',
    reference: 'wrong password',
    cases: {
      'unknown address': () => ({ email: nobody(), password: WRONG }),
      'wrong password': () => ({ email: 'active@bench.example', password: WRONG }),
      'suspended, wrong password': () => ({ email: 'suspended@bench.example', password: WRONG }),
      'unverified, wrong password': () => ({ email: 'unverified@bench.example', password: WRONG }),
    },
    meaning: [
      'Each case costs one Argon2id verification and writes one "Failed login" activity entry (an unknown',
      "address's belongs to nobody), both proved by `tests/api/security/account-discovery.test.ts`. Before the",
      'unknown address got its entry too, it answered about 5 ms faster at the median (Mann–Whitney p = 0.001',
      "over 300 rounds): the write was the difference. An account's entry is still a little more work than",
      "nobody's (a longer search text to index, the reference to the account checked): see docs/security.md.",
    ],
  },
  {
    title: 'Forgot-password',
    path: '/api/auth/forgot-password',
    status: 200,
    answer: '200 "If an account exists for this address, a password reset link has been sent."',
    reference: 'an account',
    cases: {
      'unknown address': () => ({ email: nobody() }),
      'an account': () => ({ email: 'active@bench.example' }),
      'unverified account': () => ({ email: 'unverified@bench.example' }),
    },
    meaning: [
      'Each case queues the request (one encrypted row in the mail queue) and answers; the mail worker then',
      'issues the token, writes the entry and queues the mail for an account, or drops the request for an',
      'unknown address (decision 0003). Until 2026-11-22 a known address did that work before answering.',
    ],
  },
  {
    title: 'Resend-verification',
    path: '/api/auth/resend-verification',
    status: 200,
    answer: '200 "If this address is waiting for verification, a new verification email is on its way."',
    reference: 'waiting for verification',
    cases: {
      'unknown address': () => ({ email: nobody() }),
      'waiting for verification': () => ({ email: 'unverified@bench.example' }),
      'already verified': () => ({ email: 'active@bench.example' }),
    },
    meaning: ['The same as forgot-password: one queued request per call, carried out by the mail worker.'],
  },
]

async function seed(url: string): Promise<void> {
  const passwordHash = await hash(PASSWORD, { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  await query(url, [
    `INSERT INTO users (name, email, password_hash, role, status, email_verified_at) VALUES
       ('Bench Admin', 'admin@bench.example', $1, 'ADMIN', 'ACTIVE', now()),
       ('Active', 'active@bench.example', $1, 'CLIENT', 'ACTIVE', now()),
       ('Suspended', 'suspended@bench.example', $1, 'CLIENT', 'SUSPENDED', now()),
       ('Unverified', 'unverified@bench.example', $1, 'CLIENT', 'ACTIVE', NULL)`,
    [passwordHash],
  ])
}

async function timeOne(base: string, study: Study, kind: string): Promise<number> {
  const started = process.hrtime.bigint()
  const response = await fetch(`${base}${study.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(study.cases[kind]!()),
  })
  await response.arrayBuffer()
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (response.status !== study.status) throw new Error(`${study.title}, ${kind}: expected ${study.status}, got ${response.status}`)
  return ms
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
const stdev = (values: number[]) => {
  const m = mean(values)
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1))
}
const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  )

/** 95% interval of the difference of medians (a − b), by resampling. */
function medianDifference(a: number[], b: number[]): [number, number, number] {
  const pick = (values: number[]) => Array.from({ length: values.length }, () => values[Math.floor(Math.random() * values.length)]!)
  const diffs = Array.from({ length: 2000 }, () => median(pick(a)) - median(pick(b))).sort((x, y) => x - y)
  return [median(a) - median(b), quantile(diffs, 0.025), quantile(diffs, 0.975)]
}

/** Two-sided Mann–Whitney U test (normal approximation): could the two samples come from one distribution? */
function mannWhitneyP(a: number[], b: number[]): number {
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v)
  let rankSumA = 0
  for (let i = 0; i < all.length;) {
    let j = i
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++
    const rank = (i + j) / 2 + 1
    for (let k = i; k <= j; k++) if (all[k]!.g === 0) rankSumA += rank
    i = j + 1
  }
  const u = rankSumA - (a.length * (a.length + 1)) / 2
  const mu = (a.length * b.length) / 2
  const sigma = Math.sqrt((a.length * b.length * (a.length + b.length + 1)) / 12)
  const z = Math.abs((u - mu) / sigma)
  // Two-sided p from the standard normal (Abramowitz–Stegun 7.1.26 for erfc).
  const t = 1 / (1 + 0.3275911 * (z / Math.SQRT2))
  const erfc = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-((z / Math.SQRT2) ** 2))
  return erfc
}

const fmt = (n: number, digits = 1) => n.toFixed(digits)

/** A uniformly shuffled copy (Fisher–Yates). */
function shuffled<T>(items: T[]): T[] {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
  }
  return copy
}

async function measure(base: string, study: Study): Promise<string[]> {
  const kinds = Object.keys(study.cases)
  const samples = Object.fromEntries(kinds.map((kind) => [kind, [] as number[]])) as Record<string, number[]>
  console.log(`${study.title}: warming up, then ${ROUNDS} requests per case, one at a time, in one shuffled sequence...`)
  for (let i = 0; i < WARM_UP; i++) for (const kind of kinds) await timeOne(base, study, kind)
  // One sequence of all the requests, shuffled: every case is as likely to follow any case as any
  // other is. Rounds of one request per case in random order were not: a case never followed
  // itself, and work the server does after answering (the mail worker's, for an account) slowed
  // the next request, so the case without that work was measured after it more often.
  for (const kind of shuffled(kinds.flatMap((kind) => Array<string>(ROUNDS).fill(kind)))) {
    samples[kind]!.push(await timeOne(base, study, kind))
  }

  const reference = samples[study.reference]!
  const rows = kinds.map((kind) => {
    const values = samples[kind]!
    const sorted = [...values].sort((a, b) => a - b)
    const [diff, low, high] = medianDifference(values, reference)
    const p = kind === study.reference ? null : mannWhitneyP(values, reference)
    return [
      kind,
      fmt(quantile(sorted, 0.1)),
      fmt(quantile(sorted, 0.5)),
      fmt(quantile(sorted, 0.9)),
      fmt(quantile(sorted, 0.99)),
      `${fmt(mean(values))} ± ${fmt(stdev(values))}`,
      kind === study.reference ? '(reference)' : `${fmt(diff, 2)} [${fmt(low, 2)}, ${fmt(high, 2)}]`,
      p === null ? '' : p < 0.001 ? '< 0.001' : fmt(p, 3),
    ]
  })
  const medians = kinds.map((kind) => median(samples[kind]!))
  const sortedReference = [...reference].sort((a, b) => a - b)
  return [
    `## ${study.title}`,
    '',
    `\`POST ${study.path}\`, ${ROUNDS} requests per case. Every answer was the same ${study.answer}.`,
    '',
    `| Case | p10 | p50 | p90 | p99 | mean ± sd | median − ${study.reference} [95% CI] | Mann–Whitney p |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    `Largest gap between the cases' medians: ${fmt(Math.max(...medians) - Math.min(...medians), 2)} ms, against a spread (p90 − p10) of`,
    `${fmt(quantile(sortedReference, 0.9) - quantile(sortedReference, 0.1), 1)} ms within one case.`,
    '',
    ...study.meaning,
    '',
  ]
}

export async function run(): Promise<string> {
  const url = await recreateDatabase(DATABASE)
  await seed(url)
  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' })
  try {
    const sections: string[] = []
    for (const study of STUDIES) sections.push(...(await measure(server.url, study)))
    return [
      '# Account discovery by timing',
      '',
      `Run by \`npm run bench -- enumeration\` on ${new Date().toISOString().slice(0, 10)}: ${machineLine()}.`,
      'PostgreSQL on the same machine; the server in its own process (RATE_LIMIT=off, LOG_LEVEL=warn). For each call, all',
      'the requests of all the cases go in one shuffled sequence, one at a time, after a warm-up; times measured by the',
      'client, from sending the request to reading the whole answer, in milliseconds.',
      '',
      'A p-value well above 0.05 and an interval around 0 mean the cases cannot be told apart from these samples.',
      'See docs/security.md.',
      '',
      ...sections,
    ].join('\n')
  } finally {
    await server.stop()
    await dropDatabase(DATABASE)
  }
}
