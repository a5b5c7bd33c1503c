import { type ChildProcess, fork } from 'node:child_process'
import http from 'node:http'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

/**
 * A constant-rate ("open loop") load generator: request n is due at start + n / rate, whether or
 * not earlier answers have come back, and its latency is counted from that due time, so a slow
 * answer that holds up the requests behind it shows in their latencies too (no coordinated
 * omission). autocannon's `overallRate` is not this: each connection sends its share of the
 * second back to back as soon as the second starts, then waits for the next one, so what it
 * measures at "1,000 per second" is bursts at full speed (docs/decisions/0008).
 */
export interface OpenLoopOptions {
  url: string
  /** Requests per second, spread evenly. */
  rate: number
  seconds: number
  /** Keep-alive connections the requests share; a request waits for a free one. */
  connections: number
  /** The n-th request: path (with query), method, headers, body. */
  request(n: number): RequestSpec
  /** Wait at most this long for each answer. */
  timeoutMs?: number
  /** Also report the worst latency among the requests due in each slice of this many ms. */
  timelineMs?: number
}

export interface RequestSpec {
  path: string
  method?: string
  headers?: Record<string, string>
  body?: string
}

export interface OpenLoopResult {
  sent: number
  ok: number
  non2xx: number
  errors: number
  /** Answers per second over the run. */
  answeredPerSecond: number
  latency: { p50: number; p90: number; p99: number; p999: number; max: number }
  /** With `timelineMs`: the worst latency of each slice of the run, in order. */
  timeline?: number[]
}

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const target = new URL(options.url)
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections })
  const total = Math.round(options.rate * options.seconds)
  const latencies = new Float64Array(total)
  const interval = 1000 / options.rate
  let sent = 0
  let answered = 0
  let ok = 0
  let non2xx = 0
  let errors = 0

  const start = performance.now()
  await new Promise<void>((resolve) => {
    const finish = (n: number, due: number, status: number | null) => {
      latencies[n] = performance.now() - due
      if (status === null) errors++
      else if (status >= 200 && status < 300) ok++
      else non2xx++
      if (++answered === total) resolve()
    }
    const send = (n: number) => {
      const due = start + n * interval
      const spec = options.request(n)
      const request = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: spec.path,
          method: spec.method ?? 'GET',
          headers: spec.body === undefined ? spec.headers : { ...spec.headers, 'content-length': Buffer.byteLength(spec.body) },
          timeout: options.timeoutMs ?? 10_000,
        },
        (response) => {
          response.resume()
          response.on('end', () => finish(n, due, response.statusCode ?? 0))
          response.on('error', () => finish(n, due, null))
        },
      )
      request.on('timeout', () => request.destroy(new Error('timeout')))
      request.on('error', () => finish(n, due, null))
      request.end(spec.body)
    }
    // Every millisecond or so, send whatever has come due since the last tick.
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1)
      while (sent < due) send(sent++)
      if (sent < total) setTimeout(tick, 1)
    }
    tick()
  })
  const elapsed = (performance.now() - start) / 1000
  agent.destroy()

  const timeline = options.timelineMs ? worstPerSlice(latencies, Math.max(1, Math.round(options.timelineMs / interval))) : undefined
  const sorted = Array.from(latencies).sort((a, b) => a - b)
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!)
  return {
    sent,
    ok,
    non2xx,
    errors,
    answeredPerSecond: answered / elapsed,
    latency: { p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: round(sorted[sorted.length - 1]!) },
    timeline,
  }
}

function worstPerSlice(latencies: Float64Array, perSlice: number): number[] {
  const worst: number[] = []
  for (let first = 0; first < latencies.length; first += perSlice) worst.push(round(Math.max(...latencies.subarray(first, first + perSlice))))
  return worst
}

const round = (ms: number) => Math.round(ms * 100) / 100

/** What a sender process is given: the requests are taken in turn, the first again after the last. */
export type SenderOptions = Omit<OpenLoopOptions, 'request'> & { requests: RequestSpec[] }

/**
 * The same load, sent from a process of its own (`open-loop-process.ts`), kept for several runs.
 * A sender's own pauses count as latency (a request due during one is sent late), so a benchmark
 * whose process holds much else (other loads' results, autocannon's, an earlier engine's) would
 * measure its own garbage collections too; a small process of its own measures the server.
 */
export class SenderProcess {
  private next = 0
  private readonly waiting = new Map<number, { resolve(result: OpenLoopResult): void; reject(error: Error): void }>()

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: { id: number; result?: OpenLoopResult; error?: string }) => {
      const waiter = this.waiting.get(message.id)
      this.waiting.delete(message.id)
      if (message.result) waiter?.resolve(message.result)
      else waiter?.reject(new Error(message.error ?? 'the sender failed'))
    })
    child.on('exit', (code, signal) => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`the sender ended (${signal ?? code})`))
      this.waiting.clear()
    })
  }

  /** The sending process's id (for its CPU time). */
  get pid(): number {
    return this.child.pid!
  }

  static async start(): Promise<SenderProcess> {
    const child = fork(fileURLToPath(new URL('./open-loop-process.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve())
      child.once('error', reject)
      child.once('exit', (code) => reject(new Error(`the sender did not start (${code})`)))
    })
    return new SenderProcess(child)
  }

  private get ended(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null
  }

  run(options: SenderOptions): Promise<OpenLoopResult> {
    const id = this.next++
    return new Promise((resolve, reject) => {
      if (this.ended) return reject(new Error('the sender has ended'))
      this.waiting.set(id, { resolve, reject })
      this.child.send({ id, options }, (error) => {
        if (!error) return
        this.waiting.delete(id)
        reject(error)
      })
    })
  }

  /** Ends the process; safe to call more than once, and after it has ended. */
  async stop(): Promise<void> {
    if (this.ended) return
    const exited = new Promise((resolve) => this.child.once('exit', resolve))
    this.child.kill()
    await exited
  }
}
