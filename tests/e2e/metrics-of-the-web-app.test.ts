import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { webBuildDir } from '../../scripts/web-build.mjs'
import { type RunningServer, startServer } from './support/server'
import { root } from './support/web-build'

/**
 * GET /metrics against the real server serving the real build of the web app (contract section 8):
 * every file of the build counts under one route, and no request, whatever its path, adds a
 * series. One series per hashed file (136 files × 16 series after one page load) grew with every
 * release and let any visitor add series by asking for files.
 */
let server: RunningServer | undefined
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.stop()
})

/** The build's files, as addresses: /index.html, /favicon.svg, /assets/index-….js, … */
function builtFiles(dir = webBuildDir(root), prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const address = `${prefix}/${entry.name}`
    return entry.isDirectory() ? builtFiles(path.join(dir, entry.name), address) : [address]
  })
}

/** Addresses nothing serves, each run with its own words: a visitor may vary them at will. */
const unknownAddresses = (word: string) => [
  `/assets/index-${word}.js`,
  `/assets/${word}.css`,
  `/${word}.png`,
  `/${word}/deeper/still.js`,
  `/no-such-page-${word}`,
  `/admin/${word}`,
  `/api/${word}`,
  `/oidc/${word}`,
]

interface Series {
  labels: string
  count: number
}

/** Every request-duration series: its labels as written, and its count of requests. */
async function requestSeries(): Promise<Series[]> {
  const response = await fetch(`${server!.url}/metrics`)
  expect(response.status).toBe(200)
  return [...(await response.text()).matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)].map(([, labels, count]) => ({
    labels: labels!,
    count: Number(count),
  }))
}

async function requestAll(addresses: string[], method: 'GET' | 'HEAD' = 'GET'): Promise<void> {
  for (const address of addresses) {
    const response = await fetch(`${server!.url}${address}`, { method })
    await response.arrayBuffer()
  }
}

describe('request metrics of the web app', () => {
  test('every built file counts under one route, and no address adds a series', async () => {
    const files = builtFiles()
    expect(files.length).toBeGreaterThan(50)
    await requestSeries() // its own series: /metrics is counted from its first answer on

    await requestAll([...files, ...unknownAddresses('first')])
    await requestAll(files.slice(0, 5), 'HEAD')
    const before = await requestSeries()

    await requestAll([...files, ...unknownAddresses('second'), ...unknownAddresses('third')])
    await requestAll(files.slice(5, 10), 'HEAD')
    const after = await requestSeries()

    expect(after.map((series) => series.labels)).toEqual(before.map((series) => series.labels))
    const labels = after.map((series) => series.labels).join('\n')
    expect(labels).not.toContain('/assets/')
    expect(labels).not.toMatch(/first|second|third/)
    const served = after.find((series) => series.labels === 'method="GET",route="static",status_code="200"')
    expect(served?.count, labels).toBe(2 * files.length)
  })
})
