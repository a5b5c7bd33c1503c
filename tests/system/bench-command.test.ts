import { expect, it } from 'vitest'
import { freePort, runCommand } from './server-process'

/**
 * `npm run bench` (bench/run.ts) on a machine without the PostgreSQL server it makes its databases
 * on (a newcomer's laptop): a sentence naming the setting before any benchmark starts, where a
 * connection error's stack came after the first benchmark's heading.
 */
it('npm run bench says which PostgreSQL server it needs when none answers, before any benchmark starts', async () => {
  const port = await freePort()
  const run = await runCommand('bench/run.ts', { BENCH_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres` }, ['sessions'])
  expect(run.code, run.output).toBe(1)
  expect(run.output).toContain(`Cannot run the benchmarks: No PostgreSQL server answers at 127.0.0.1:${port} (BENCH_DATABASE_URL)`)
  expect(run.output).toContain('`npm run bench -- web` needs none.')
  expect(run.output).not.toContain('=== benchmark')
})
