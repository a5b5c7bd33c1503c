/**
 * Development aid (`npx tsx bench/support/memory-monitor-stalls.ts`): how the kernel's memory
 * monitor (DAMON, where the machine runs it) weighs on a server's tail at 1,000 requests a second
 * by the memory the server keeps. The bare UserInfo server (bench/support/bare-userinfo-server.ts)
 * with no held heap, then holding 200 MiB of small objects and reading a few per request; four
 * runs of 5 s each, sent evenly from a process of their own; each line gives the runs' p99s and the
 * CPU the monitor took meanwhile. docs/benchmarks.md has what it showed, with the monitor running
 * and paused.
 */
import { SenderProcess } from './open-loop'
import { memoryMonitorMeter, memoryMonitorText, startBareServer } from './server'

const RUNS = 4
const SECONDS = 5
const sender = await SenderProcess.start()
try {
  for (const heapMiB of [0, 200]) {
    const bare = await startBareServer('bare-userinfo-server.ts', { BARE_HEAP_MIB: String(heapMiB) })
    try {
      const load = () =>
        sender.run({ url: bare.url, rate: 1000, seconds: SECONDS, connections: 20, requests: [{ path: '/oidc/me', headers: { authorization: 'Bearer bench' } }] })
      await load()
      const monitor = memoryMonitorMeter()
      const p99s: number[] = []
      for (let run = 0; run < RUNS; run++) p99s.push((await load()).latency.p99)
      const msPerSecond = monitor()
      console.log(`bare server holding ${heapMiB} MiB: p99 ${p99s.map((ms) => ms.toFixed(1)).join(', ')} ms | the memory monitor: ${memoryMonitorText(msPerSecond)}`)
    } finally {
      bare.stop()
    }
  }
} finally {
  await sender.stop()
}
