// Loaded into the server process by bench/support/oidc-userinfo-tail.ts (`node --import`): on each
// SIGUSR2, appends to $SERVER_PAUSES_FILE one JSON line with the event loop's delay (p50, p99, max,
// in ms) and the garbage collections since the last signal (by V8's kind: 1 scavenge, 2 minor
// mark-sweep, 4 mark-compact, 8 incremental marking, 16 weak callbacks) and its memory (MiB), then
// starts counting again.
import fs from 'node:fs'
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'

const file = process.env.SERVER_PAUSES_FILE
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  let collections = []
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) collections.push({ kind: entry.detail?.kind ?? 0, ms: entry.duration })
  }).observe({ entryTypes: ['gc'] })
  process.on('SIGUSR2', () => {
    const byKind = {}
    for (const { kind, ms } of collections) {
      byKind[kind] ??= { count: 0, ms: 0, maxMs: 0 }
      byKind[kind].count++
      byKind[kind].ms += ms
      byKind[kind].maxMs = Math.max(byKind[kind].maxMs, ms)
    }
    const mib = (bytes) => Math.round(bytes / 2 ** 20)
    const { rss, heapTotal, heapUsed, external } = process.memoryUsage()
    const memory = { rss: mib(rss), heapTotal: mib(heapTotal), heapUsed: mib(heapUsed), external: mib(external) }
    const line = { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, gc: byKind, memory }
    fs.appendFileSync(file, JSON.stringify(line) + '\n')
    delay.reset()
    collections = []
  })
}
