// The web app's production bundle in dist/web, built when it is missing or older than its sources:
// by `npm start` (scripts/start.mjs) and by the browser tests' setup (tests/e2e/support/web-build.ts),
// one build at a time per folder. Two at once (two instances started together, or `npm start` in
// one terminal and `npm test` in another on a fresh clone) would each empty dist/web under the
// other; the others wait, then find it built. A lock left by a killed build is taken over.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/** What the bundle is built from. */
const SOURCES = ['src/web', 'src/shared', 'index.html', 'vite.config.ts', 'public']

export const webBuildDir = (root) => path.join(root, 'dist', 'web')

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0
  const stat = fs.statSync(target)
  if (!stat.isDirectory()) return stat.mtimeMs
  return fs.readdirSync(target).reduce((newest, name) => Math.max(newest, newestMtime(path.join(target, name))), stat.mtimeMs)
}

/** Whether dist/web is missing or older than any of its sources. */
function webAppIsStale(root) {
  const stamp = path.join(webBuildDir(root), 'index.html')
  return !fs.existsSync(stamp) || fs.statSync(stamp).mtimeMs < Math.max(...SOURCES.map((source) => newestMtime(path.join(root, source))))
}

/**
 * Brings dist/web up to date. Resolves to `{ built }` (false when it was up to date, or built by the
 * process this one waited for), `{ unwritable: true }` when this user may not build there, or
 * `{ failed: status, output }` when Vite failed (`output` is empty when it went to this process's own
 * output: `stdio: 'inherit'`).
 */
export async function ensureWebApp(root, { log = console.log, stdio = 'inherit', viteArgs = [], env = process.env } = {}) {
  if (!webAppIsStale(root)) return { built: false }
  const lock = path.join(root, 'dist', '.web-build.lock')
  try {
    fs.mkdirSync(path.dirname(lock), { recursive: true })
    let waiting = false
    while (!takeLock(lock)) {
      if (!waiting) log('Waiting for the web app build of another process in this folder...')
      waiting = true
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  } catch (error) {
    if (['EACCES', 'EPERM', 'EROFS'].includes(error.code)) return { unwritable: true }
    throw error
  }
  try {
    if (!webAppIsStale(root)) return { built: false } // built by the process it waited for
    log('Building the web app (first start, or sources changed)...')
    const vite = spawn(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', ...viteArgs], { cwd: root, stdio, env })
    let output = ''
    vite.stdout?.on('data', (chunk) => (output += chunk))
    vite.stderr?.on('data', (chunk) => (output += chunk))
    const status = await new Promise((resolve) => vite.once('close', (code) => resolve(code ?? 1)))
    return status === 0 ? { built: true } : { failed: status, output }
  } finally {
    fs.rmSync(lock, { force: true })
  }
}

/** Takes the build lock, or takes over one whose process has gone (killed mid-build): false while another holds it. */
function takeLock(lock) {
  try {
    fs.writeFileSync(lock, String(process.pid), { flag: 'wx' })
    return true
  } catch (error) {
    if (error.code !== 'EEXIST') throw error
  }
  try {
    const holder = Number(fs.readFileSync(lock, 'utf8').trim())
    // An empty file is a process between creating the lock and writing its number, unless it is old.
    const gone = holder ? !isRunning(holder) : Date.now() - fs.statSync(lock).mtimeMs > 10_000
    if (gone) fs.rmSync(lock, { force: true })
  } catch (error) {
    if (error.code !== 'ENOENT') throw error // let go meanwhile: try again
  }
  return false
}

function isRunning(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}
