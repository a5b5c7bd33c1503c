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
import type autocannon from 'autocannon'
import { freePort } from '../../tests/support/server-process'
import { cannon, type Engine, PASSWORD, prepareEngine, refreshGrantRequest, registerBenchApp, signInChains, userInfoRequest } from '../oidc'
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
  cleanup(): Promise<void>
  app: Awaited<ReturnType<typeof registerBenchApp>>
  /** One live refresh token per chain. Answers in flight when a turn ends are lost with their tokens: 32 chains for each turn. */
  refreshTokens: string[]
  accessTokens: string[]
}

const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
const trees: Tree[] = []
try {
  for (const [index, root] of [before, after].entries()) {
    const prepared = await prepareEngine(engine, passwordHash, `accounts_oidc_bench_compare_${index}`)
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const server = await startServer({ ...prepared.env, PORT: String(port), APP_URL: base, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' }, [], root)
    const tree: Tree = {
      label: index === 0 ? 'before' : 'after',
      base,
      server,
      cleanup: prepared.cleanup,
      app: await registerBenchApp(base),
      refreshTokens: [],
      accessTokens: [],
    }
    trees.push(tree)
    Object.assign(tree, await signInChains(base, tree.app, 32 + 32 * ROUNDS))
  }
  const sums = new Map<string, { cpuMs: number; answers: number; seconds: number }>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const call of ['userinfo', 'refresh'] as const) {
      for (const tree of round % 2 ? [...trees].reverse() : trees) {
        const cpuBefore = processCpuMs(tree.server.child.pid!)
        const result = await turn(tree, call)
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
  for (const tree of trees) {
    await tree.server.stop()
    await tree.cleanup()
  }
}

function turn(tree: Tree, call: 'userinfo' | 'refresh'): Promise<autocannon.Result> {
  return cannon({
    url: `${tree.base}/oidc/${call === 'userinfo' ? 'me' : 'token'}`,
    connections: 32,
    duration: SECONDS,
    requests: [
      call === 'userinfo'
        ? userInfoRequest(tree.accessTokens)
        : refreshGrantRequest(
            tree.app,
            () => tree.refreshTokens.shift()!,
            (refreshToken) => tree.refreshTokens.push(refreshToken),
          ),
    ],
  })
}
