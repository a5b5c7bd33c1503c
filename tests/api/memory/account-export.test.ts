import http from 'node:http'
import type { AddressInfo } from 'node:net'
import v8 from 'node:v8'
import vm from 'node:vm'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { type SignedIn, useTestApp } from '../../support/test-app'
import { quickSignIn } from '../helpers/users'

/**
 * "Download your data" with flat memory (docs/decisions/0560): an account with 100,000 activity
 * entries downloads a document of some 20 MB through a real socket, read by a client that stops
 * after every megabyte, collects the garbage and weighs the process (JavaScript heap, buffers
 * outside it and array buffers, server and client together) before reading on. A server that
 * built the document in memory, or kept writing while the client was not reading, would weigh the
 * document at the first stop; this one never weighs more than a few batches above what it
 * weighed before. A measure of memory, never of time.
 */
const ENTRIES = 100_000
const STOP_EVERY = 1024 * 1024
/** What the download may add at any stop: a few batches of rows and text, and the sockets' buffers. */
const MOST_GROWTH = 16 * 1024 * 1024
/** What each seeded entry, and nothing else, holds. */
const MARK = '"details": "Chrome 131 on macOS, entry '

v8.setFlagsFromString('--expose-gc')
const collectGarbage = vm.runInNewContext('gc') as () => void

/** The process's memory after a full collection: heap, external buffers and array buffers. */
function weigh(): number {
  collectGarbage()
  collectGarbage()
  const { heapUsed, external, arrayBuffers } = process.memoryUsage()
  return heapUsed + external + arrayBuffers
}

const t = useTestApp()
let person: SignedIn
let origin: string

beforeAll(async () => {
  person = await quickSignIn(t, { name: 'Long History' })
  // The weekly search index is built once after the entries are in, as a restore would build it:
  // kept up entry by entry, it made writing them take minutes. The export never reads it.
  const { rows } = await sql<{ indexdef: string }>`SELECT indexdef FROM pg_indexes WHERE indexname = 'activities_search_weekly'`.execute(t.ctx.db)
  // One transaction without the pool's statement timeout: on PostgreSQL the writing outlasts it.
  await t.ctx.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL statement_timeout = 0`.execute(trx)
    await sql`DROP INDEX activities_search_weekly`.execute(trx)
    await sql`
      INSERT INTO activities (user_id, actor_id, kind, activity, details, ip_address, created_at)
      SELECT ${person.id}, ${person.id}, 'logged in', 'Logged in', 'Chrome 131 on macOS, entry ' || n, '192.0.2.' || (n % 250),
        timestamptz '2026-01-01 00:00:00+00' + n * interval '1 minute'
      FROM generate_series(1, ${ENTRIES}) AS n`.execute(trx)
    await sql.raw(rows[0]!.indexdef).execute(trx)
  })
  // A real socket, so that a client that stops reading holds the server back (closed with the app).
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
}, 300_000)

interface Download {
  bytes: number
  entries: number
  end: string
  /** The most the process weighed above `baseline` at any stop. */
  growth: number
}

/** Downloads the export through the socket, stopping every megabyte to weigh the process against `baseline`. */
function download(baseline: number | null): Promise<Download> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${origin}/api/auth/export`, { headers: { authorization: `Bearer ${person.accessToken}` } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`the export answered ${response.statusCode}`))
        response.resume()
        return
      }
      let bytes = 0
      let sinceStop = 0
      let entries = 0
      let tail = ''
      let growth = 0
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        bytes += Buffer.byteLength(chunk)
        sinceStop += chunk.length
        // Entries counted across chunk boundaries: the last few characters are looked at again.
        const text = tail + chunk
        entries += text.split(MARK).length - 1
        tail = text.slice(-MARK.length)
        entries -= tail.split(MARK).length - 1
        if (sinceStop >= STOP_EVERY && baseline !== null) {
          sinceStop = 0
          response.pause()
          // Weighed once the data event has returned, so that this chunk is garbage too.
          setImmediate(() => {
            growth = Math.max(growth, weigh() - baseline)
            response.resume()
          })
        }
      })
      response.on('end', () => {
        entries += tail.split(MARK).length - 1
        resolve({ bytes, entries, end: tail.slice(-3), growth })
      })
      response.on('error', reject)
    })
    request.on('error', reject)
  })
}

describe('downloading 100,000 activity entries', () => {
  it('keeps the process within a few batches of its memory before, whatever the document’s size', async () => {
    // A first download, unmeasured: the database and the engine reach their working size.
    const first = await download(null)
    expect(first.entries).toBe(ENTRIES)
    // Two measured downloads, the smaller growth counted: a server that holds the document grows
    // by its size in both, while a collection the engine put off, or a busy machine's late work,
    // lands in one.
    const measured: Download[] = []
    for (let round = 0; round < 2; round++) {
      const one = await download(weigh())
      expect(one.entries).toBe(ENTRIES)
      expect(one.end).toBe('\n}\n')
      expect(one.bytes).toBeGreaterThan(20 * 1024 * 1024)
      measured.push(one)
    }
    const growth = Math.min(...measured.map((each) => each.growth))
    const document = (measured[0]!.bytes / 1024 / 1024).toFixed(1)
    const grown = measured.map((each) => `${(each.growth / 1024 / 1024).toFixed(1)} MiB`).join(' and ')
    expect(growth, `grew by ${grown} for a ${document} MiB document`).toBeLessThan(MOST_GROWTH)
  }, 300_000)
})
