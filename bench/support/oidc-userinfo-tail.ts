/**
 * Development aid (`npx tsx bench/support/oidc-userinfo-tail.ts [postgres|pglite] [node flags…]`):
 * where UserInfo's tail at 1,000 requests per second comes from. After a warm-up (WARM_UP_SECONDS,
 * 15 by default), four runs of RUN_SECONDS sent evenly from a sender process of their own
 * (bench/support/open-loop.ts), each printed with the server's own event-loop delay, its garbage
 * collections and its memory over the run (bench/support/server-pauses.mjs), and the CPU the
 * kernel's memory monitor took (DAMON: its sampling stalls processes in proportion to their
 * memory, docs/benchmarks.md), so that a run's p99 can be told apart into the server's pauses and
 * what happened outside it. With TIMELINE=1, also the worst latency of each 100 ms. Node flags after the
 * engine go to the server (for example `--max-semi-space-size=16`). With ME=1, `GET /api/auth/me`
 * instead. The set-up is bench/oidc.ts's: 64 people signed in to one confidential app.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { hash } from '@node-rs/argon2'
import { freePort } from '../../tests/support/server-process'
import { benchAccessTokens, type Engine, PASSWORD, prepareEngine, registerBenchApp } from '../oidc'
import { SenderProcess } from './open-loop'
import { memoryMonitorMeter, memoryMonitorText, startServer } from './server'

const engine = (process.argv[2] ?? 'postgres') as Engine
/**
 * A server that has just started answers 1,000 a second with a backlog of up to a few hundred ms
 * for its first seconds, and once more about 10 s in (its socket writes several times slower for
 * most of a second; seen on every run on one slow day): the runs start after both.
 */
const WARM_UP_SECONDS = Number(process.env.WARM_UP_SECONDS ?? 15)
const TIMELINE = Boolean(process.env.TIMELINE)
const RUN_SECONDS = 5
const serverFlags = process.argv.slice(3)
const pausesFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-pauses-')), 'pauses.jsonl')
const prepared = await prepareEngine(engine, await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 }))
const port = await freePort()
const base = `http://127.0.0.1:${port}`
const server = await startServer({ ...prepared.env, PORT: String(port), APP_URL: base, RATE_LIMIT: 'off', LOG_LEVEL: 'warn', SERVER_PAUSES_FILE: pausesFile }, [
  '--import',
  path.resolve('bench/support/server-pauses.mjs'),
  ...serverFlags,
])
let sender: SenderProcess | undefined
try {
  sender = await SenderProcess.start()
  const app = await registerBenchApp(base)
  const tokens = await benchAccessTokens(base, app, Boolean(process.env.ME))
  const route = process.env.ME ? '/api/auth/me' : '/oidc/me'
  const requests = tokens.map((token) => ({ path: route, headers: { authorization: `Bearer ${token}` } }))
  const load = (seconds: number) => sender!.run({ url: base, rate: 1000, seconds, connections: 20, timelineMs: TIMELINE ? 100 : undefined, requests })
  const printTimeline = (what: string, timeline?: number[]) => {
    if (timeline) console.log(`${what}, the worst latency of each 100 ms (ms): ${timeline.map((ms) => ms.toFixed(0)).join(' ')}`)
  }
  const pauses = async () => {
    server.child.kill('SIGUSR2')
    await new Promise((resolve) => setTimeout(resolve, 300))
    return JSON.parse(fs.readFileSync(pausesFile, 'utf8').trim().split('\n').at(-1)!) as {
      p99: number
      max: number
      gc: Record<string, { count: number; ms: number; maxMs: number }>
      memory: { rss: number; heapTotal: number; heapUsed: number; external: number }
    }
  }
  printTimeline('warm-up', (await load(WARM_UP_SECONDS)).timeline)
  console.log(`${engine} ${route} at 1,000/s, server flags: ${serverFlags.join(' ') || 'none'}`)
  for (let run = 1; run <= 4; run++) {
    await pauses()
    const monitor = memoryMonitorMeter()
    const result = await load(RUN_SECONDS)
    const monitorMsPerSecond = monitor()
    printTimeline(`run ${run}`, result.timeline)
    const server = await pauses()
    const gc = Object.entries(server.gc)
      .map(([kind, g]) => `kind ${kind}: ${g.count} taking ${g.ms.toFixed(0)} ms (longest ${g.maxMs.toFixed(1)})`)
      .join('; ')
    const { p50, p90, p99, max } = result.latency
    const { rss, heapUsed, heapTotal } = server.memory
    console.log(
      `run ${run}: p50 ${p50.toFixed(2)}, p90 ${p90.toFixed(2)}, p99 ${p99.toFixed(2)}, max ${max.toFixed(1)} ms | the server's event loop: delay p99 ${server.p99.toFixed(1)}, max ${server.max.toFixed(1)} ms; collections: ${gc}; memory: RSS ${rss} MiB, heap ${heapUsed} of ${heapTotal} MiB | the kernel's memory monitor (DAMON): ${memoryMonitorText(monitorMsPerSecond)}`,
    )
  }
} finally {
  await sender?.stop()
  await server.stop()
  await prepared.cleanup()
  fs.rmSync(path.dirname(pausesFile), { recursive: true, force: true })
}
