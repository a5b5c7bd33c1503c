/**
 * Development aid (`npx tsx bench/support/oidc-refresh-profile.ts [pglite|postgres]`): refresh
 * grants at the token endpoint (with USERINFO=1: UserInfo reads; PHASES=refresh,userinfo: one
 * after the other) at full speed for SECONDS (20) each, the server under `--cpu-prof` (the profile
 * in /tmp/oidc-prof; PROFILE=0: none), and the server's CPU time per answer. The set-up is bench/oidc.ts's: 64
 * people (32 more for each refresh phase after the first) signed in to one confidential app, one
 * chain of refresh tokens each.
 */
import fs from 'node:fs'
import { hash } from '@node-rs/argon2'
import { freePort } from '../../tests/support/server-process'
import { type Engine, fullSpeedLoad, PASSWORD, prepareEngine, registerBenchApp, signInChains } from '../oidc'
import { processCpuMs, startServer } from './server'

const engine = (process.argv[2] ?? 'pglite') as Engine
const SECONDS = Number(process.env.SECONDS ?? 20)
const profile = process.env.PROFILE !== '0'
const prepared = await prepareEngine(engine, await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 }))
const port = await freePort()
const base = `http://127.0.0.1:${port}`
fs.rmSync('/tmp/oidc-prof', { recursive: true, force: true })
const server = await startServer(
  { ...prepared.env, PORT: String(port), APP_URL: base, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' },
  profile ? ['--cpu-prof', '--cpu-prof-dir=/tmp/oidc-prof'] : [],
)
try {
  const app = await registerBenchApp(base)
  // PHASES: what runs, one after another on the same server, each for SECONDS (for example
  // `refresh,userinfo`: UserInfo after the rows a refresh load leaves). Each refresh phase ends with
  // up to 32 refresh tokens in flight, whose answers are never read: 32 chains more for each.
  const phases = (process.env.PHASES ?? (process.env.USERINFO ? 'userinfo' : 'refresh')).split(',')
  const chains = Math.min(288, Math.max(64, 32 + 32 * phases.filter((phase) => phase === 'refresh').length))
  const signedIn = await signInChains(base, app, chains)
  for (const phase of phases) {
    const userinfo = phase === 'userinfo'
    const before = processCpuMs(server.child.pid!)
    const result = await fullSpeedLoad(base, app, signedIn, userinfo ? 'userinfo' : 'refresh', SECONDS)
    console.log(
      `${engine} ${phase}: ${(result['2xx'] / result.duration).toFixed(0)} answers/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, server CPU ${((processCpuMs(server.child.pid!) - before) / result['2xx']).toFixed(2)} ms per answer`,
    )
  }
} finally {
  await server.stop()
  await prepared.cleanup()
}
