/**
 * Development aid: the provider's UserInfo and refresh grants, before and after a change, on this
 * shared machine.
 *
 *   git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   npx tsx bench/support/compare-oidc.ts /tmp/before . [pglite|postgres]
 *
 * Starts the server of each source tree on a database of its own (set up as `npm run bench -- oidc`
 * sets one up: one confidential app, people signed in to it through the real flow), then measures
 * on each in turn, at full speed with 32 connections, UserInfo and then refresh grants (ROUNDS
 * rounds of TURN_SECONDS each, the order reversed every other round), so that a slower stretch of
 * the machine weighs on both trees alike. Per turn and in sum (the first round left out, as a
 * warm-up): answers per second and the server process's CPU time per answer, from /proc.
 */
import { hash } from '@node-rs/argon2'
import { freePort } from '../../tests/support/server-process'
import { type Chains, type Engine, fullSpeedLoad, PASSWORD, prepareEngine, registerBenchApp, signInChains } from '../oidc'
import { type BenchServer, processCpuMs, startServer } from './server'

const SECONDS = Number(process.env.TURN_SECONDS ?? 3)
const ROUNDS = Number(process.env.ROUNDS ?? 6)
const [before, after, engineArgument] = process.argv.slice(2)
if (!before || !after) throw new Error('Usage: npx tsx bench/support/compare-oidc.ts <source tree before> <source tree after> [pglite|postgres]')
const engine = (engineArgument ?? 'pglite') as Engine

interface Tree {
  label: string
  base: string
  server: BenchServer
  app: Awaited<ReturnType<typeof registerBenchApp>>
  /** Answers in flight when a refresh turn ends are lost with their tokens: 32 chains for each turn. */
  chains: Chains
}

const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
const trees: Tree[] = []
/** What was set up, undone at the end in reverse order, whether or not its tree got ready. */
const undo: (() => Promise<unknown>)[] = []
try {
  for (const [index, root] of [before, after].entries()) {
    const prepared = await prepareEngine(engine, passwordHash, `accounts_oidc_bench_compare_${index}`)
    undo.push(prepared.cleanup)
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const server = await startServer({ ...prepared.env, PORT: String(port), APP_URL: base, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' }, [], root)
    undo.push(() => server.stop())
    const app = await registerBenchApp(base)
    trees.push({ label: index === 0 ? 'before' : 'after', base, server, app, chains: await signInChains(base, app, 32 + 32 * ROUNDS) })
  }
  const sums = new Map<string, { cpuMs: number; answers: number; seconds: number }>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const call of ['userinfo', 'refresh'] as const) {
      for (const tree of round % 2 ? [...trees].reverse() : trees) {
        const cpuBefore = processCpuMs(tree.server.child.pid!)
        const result = await fullSpeedLoad(tree.base, tree.app, tree.chains, call, SECONDS)
        const cpuMs = processCpuMs(tree.server.child.pid!) - cpuBefore
        const answers = result['2xx']
        console.log(
          `round ${round + 1} ${tree.label.padEnd(6)} ${call.padEnd(8)} ${(answers / result.duration).toFixed(0)}/s, ${(cpuMs / answers).toFixed(2)} ms of server CPU each, failed ${result.non2xx + result.errors}`,
        )
        if (round === 0) continue
        const key = `${tree.label.padEnd(6)} ${call.padEnd(8)}`
        const sum = sums.get(key) ?? { cpuMs: 0, answers: 0, seconds: 0 }
        sums.set(key, { cpuMs: sum.cpuMs + cpuMs, answers: sum.answers + answers, seconds: sum.seconds + result.duration })
      }
    }
  }
  for (const [key, sum] of [...sums].sort()) {
    console.log(`rounds 2-${ROUNDS}: ${key} ${(sum.answers / sum.seconds).toFixed(0)}/s, ${(sum.cpuMs / sum.answers).toFixed(2)} ms of server CPU each`)
  }
} finally {
  for (const step of undo.reverse()) await step()
}
