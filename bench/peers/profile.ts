/**
 * Development aid (`npx tsx bench/peers/profile.ts`): where Better Auth's server spends its CPU on
 * the session check. For each of its two session set-ups (database, cookie cache) the server
 * (bench/peers/better-auth-server.ts) runs with `--cpu-prof` under 10 s of getSession at full
 * speed (autocannon, 20 connections), on a small database of its own; then the profile's busy time
 * is printed by package and for the functions docs/benchmarks/peers.md names (inclusive time of
 * their synchronous part: awaited work after a function's first `await` is not counted in it).
 */
import { fork } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { hash } from '@node-rs/argon2'
import autocannon from 'autocannon'
import { freePort } from '../../tests/support/server-process'
import { createPeerDatabases, dropPeerDatabases } from './databases'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

const NAMED =
  /^(router|getEndpoints|createRouter\$1|createInternalContext|getSignedCookie|verifySignature|getCryptoKey|decodeCookieCache|findSession|writev|\(garbage collector\)) /

function summarise(profile: Profile): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const byPackage = new Map<string, number>()
  const inclusive = new Map<string, number>()
  let busy = 0
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!
    if (node.callFrame.functionName === '(idle)') return
    const ms = (profile.timeDeltas[i] ?? 0) / 1000
    busy += ms
    const url = node.callFrame.url
    const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.startsWith('node:') ? 'node' : url ? path.basename(url) : node.callFrame.functionName)
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms)
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame
      const key = `${frame.functionName} (${frame.url.replace(/.*node_modules\//, '')})`
      if (!seen.has(key) && NAMED.test(key)) inclusive.set(key, (inclusive.get(key) ?? 0) + ms)
      seen.add(key)
    }
  })
  const share = (ms: number) => `${((100 * ms) / busy).toFixed(1)}%`
  return [
    `  busy ${busy.toFixed(0)} ms; by package:`,
    ...[...byPackage]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([name, ms]) => `    ${share(ms)} ${name}`),
    '  named functions, inclusive:',
    ...[...inclusive].sort((a, b) => b[1] - a[1]).map(([name, ms]) => `    ${share(ms)} ${name}`),
  ]
}

const PASSWORD = 'Bench-Password-42!'
const passwordHash = await hash(PASSWORD, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
const databases = await createPeerDatabases({ users: 1000, benchUsers: 20, passwordHash, log: () => undefined })
try {
  for (const cookieCache of [false, true]) {
    const port = await freePort()
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'better-auth-profile-'))
    const env = {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databases.betterAuth,
      BA_SECRET: crypto.randomBytes(32).toString('hex'),
      BA_COOKIE_CACHE: cookieCache ? 'on' : 'off',
    }
    const child = fork(new URL('./better-auth-server.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx', '--cpu-prof', `--cpu-prof-dir=${dir}`], env })
    await new Promise((resolve) => child.once('message', resolve))
    const url = `http://127.0.0.1:${port}`
    const signedIn = await fetch(`${url}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ email: databases.emails[0], password: PASSWORD }),
    })
    const cookie = signedIn.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ')
    const result = await new Promise<autocannon.Result>((resolve, reject) =>
      autocannon({ url: `${url}/api/auth/get-session`, connections: 20, duration: 10, headers: { cookie } }, (error, r) => (error ? reject(error) : resolve(r))),
    )
    // Once disconnected the server closes and exits by itself, which writes the profile.
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.disconnect()
    await exited
    const file = fs
      .readdirSync(dir)
      .map((name) => path.join(dir, name))
      .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!
    console.log(`Better Auth, ${cookieCache ? 'cookie cache' : 'database sessions'}: ${(result['2xx'] / result.duration).toFixed(0)} answers/s`)
    console.log(summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile).join('\n'))
    fs.rmSync(dir, { recursive: true, force: true })
  }
} finally {
  await dropPeerDatabases()
}
