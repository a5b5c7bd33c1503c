/**
 * Development aid (`npx tsx bench/support/oidc-userinfo-allocation.ts [postgres|pglite] [node flags…]`):
 * what one UserInfo call leaves to the server's garbage collector (decision 0407). 5,000 calls to
 * warm up, then 10,000 counted, sent evenly, with the server under `--trace-gc-nvp`: V8's line for
 * each collection in that window is summed into bytes allocated, bytes that survived a
 * young-generation collection and bytes promoted to the old generation, each per call. A call's
 * objects should all die young; what survives makes every scavenge slower.
 *
 * RATE (default 500 a second) and CONNECTIONS (default 20) set the load; ROUTE another path
 * (`/oidc/jwks`), or ME=1 `GET /api/auth/me`, for comparison. With SITES=1, also where the
 * survivors were allocated: the server's sampling heap profile (through its inspector) of the
 * objects no young-generation collection freed, with one forced at the end, by function, bytes
 * per call (the profiler slows collections: read its sizes, not the times it prints); SITES=all
 * counts everything allocated instead, what makes scavenges come often. A heap snapshot
 * cannot show them: it runs a full collection first, which frees them.
 * The set-up is bench/oidc.ts's.
 */
import { hash } from '@node-rs/argon2'
import { freePort } from '../../tests/support/server-process'
import { benchAccessTokens, type Engine, PASSWORD, prepareEngine, registerBenchApp } from '../oidc'
import { openLoop } from './open-loop'
import { startServer } from './server'

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: ProfileNode[]
}

function printSites(head: ProfileNode, everything: boolean): void {
  const bySite = new Map<string, number>()
  const walk = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame
    const site = `${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')}:${lineNumber + 1}`
    if (node.selfSize) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize)
    for (const child of node.children) walk(child)
  }
  walk(head)
  console.log(`${everything ? 'Everything allocated' : 'Survivors'}, by the function that allocated it, bytes per call:`)
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${String(Math.round(bytes / CALLS)).padStart(7)}  ${site}`)
}

/** The server's inspector, over its WebSocket (Node.js's own client). */
class Inspector {
  private next = 0
  private readonly pending = new Map<number, (result: unknown) => void>()
  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown }
      if (message.id !== undefined) this.pending.get(message.id)?.(message.result)
    })
  }

  static async open(port: number): Promise<Inspector> {
    const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as [{ webSocketDebuggerUrl: string }]
    const socket = new WebSocket(target.webSocketDebuggerUrl)
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve)
      socket.addEventListener('error', reject)
    })
    return new Inspector(socket)
  }

  call(method: string, params: object = {}): Promise<unknown> {
    const id = ++this.next
    return new Promise((resolve) => {
      this.pending.set(id, resolve)
      this.socket.send(JSON.stringify({ id, method, params }))
    })
  }

  close(): void {
    this.socket.close()
  }
}

const engine = (process.argv[2] ?? 'postgres') as Engine
const serverFlags = process.argv.slice(3)
const CALLS = 10_000
const RATE = Number(process.env.RATE ?? 500)
const prepared = await prepareEngine(engine, await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 }))
const port = await freePort()
const base = `http://127.0.0.1:${port}`
const inspectPort = await freePort()
const sites = Boolean(process.env.SITES)
const everything = process.env.SITES === 'all'
const server = await startServer({ ...prepared.env, PORT: String(port), APP_URL: base, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' }, [
  '--trace-gc-nvp',
  ...(sites ? [`--inspect=127.0.0.1:${inspectPort}`, '--expose-gc'] : []),
  ...serverFlags,
])
let printed = ''
let counting = false
server.child.stdout!.on('data', (chunk: Buffer) => {
  if (counting) printed += chunk.toString()
})
try {
  const app = await registerBenchApp(base)
  const tokens = await benchAccessTokens(base, app, Boolean(process.env.ME))
  const route = process.env.ROUTE ?? (process.env.ME ? '/api/auth/me' : '/oidc/me')
  const load = (calls: number) =>
    openLoop({
      url: base,
      rate: RATE,
      seconds: calls / RATE,
      connections: Number(process.env.CONNECTIONS ?? 20),
      request: (n) => ({ path: route, headers: { authorization: `Bearer ${tokens[n % tokens.length]!}` } }),
    })
  await load(5_000)
  const inspector = sites ? await Inspector.open(inspectPort) : undefined
  await inspector?.call('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMinorGC: everything, includeObjectsCollectedByMajorGC: true })
  counting = true
  const result = await load(CALLS)
  await new Promise((resolve) => setTimeout(resolve, 200))
  counting = false
  if (inspector) {
    await inspector.call('Runtime.evaluate', { expression: "gc({ type: 'minor' })" })
    const { profile } = (await inspector.call('HeapProfiler.stopSampling')) as { profile: ProfileNode & { head: ProfileNode } }
    inspector.close()
    printSites(profile.head, everything)
  }
  const sums = { allocated: 0, survived: 0, promoted: 0, scavenges: 0, scavengeMs: 0, fullMs: 0, full: 0 }
  for (const line of printed.split('\n')) {
    const field = (name: string) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0)
    const kind = /\bgc=(\w+)/.exec(line)?.[1]
    if (!kind) continue
    sums.allocated += field('allocated')
    sums.survived += field('new_space_survived')
    sums.promoted += field('promoted')
    if (kind === 's') {
      sums.scavenges++
      sums.scavengeMs += field('pause')
    } else {
      sums.full++
      sums.fullMs += field('pause')
    }
  }
  const perCall = (bytes: number) => `${(bytes / CALLS / 1024).toFixed(1)} KiB`
  console.log(
    `${engine} ${route} at ${RATE}/s, ${result.ok} answered (p50 ${result.latency.p50.toFixed(1)}, p99 ${result.latency.p99.toFixed(1)} ms), server flags: ${serverFlags.join(' ') || 'none'}: per call allocated ${perCall(sums.allocated)}, survived a scavenge ${perCall(sums.survived)}, promoted ${perCall(sums.promoted)}; ${sums.scavenges} scavenges (${(sums.scavengeMs / Math.max(1, sums.scavenges)).toFixed(1)} ms each), ${sums.full} other collections (${sums.fullMs.toFixed(0)} ms in all)`,
  )
} finally {
  await server.stop()
  await prepared.cleanup()
}
