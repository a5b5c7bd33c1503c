// `npm start`: builds the web app when its bundle is missing or older than its sources, then runs
// the server in this same process (so SIGTERM reaches it directly).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { preflight } from './preflight.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
preflight(root)
const stamp = path.join(root, 'dist', 'web', 'index.html')
const sources = ['src/web', 'src/shared', 'index.html', 'vite.config.ts', 'public'].map((p) => path.join(root, p))

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0
  const stat = fs.statSync(target)
  if (!stat.isDirectory()) return stat.mtimeMs
  return fs.readdirSync(target).reduce((newest, name) => Math.max(newest, newestMtime(path.join(target, name))), stat.mtimeMs)
}

const hasWebApp = fs.existsSync(path.join(root, 'index.html'))
const stale = () => !fs.existsSync(stamp) || fs.statSync(stamp).mtimeMs < Math.max(...sources.map(newestMtime))
if (hasWebApp && stale()) await buildWebApp()

/**
 * Builds the web app, one start at a time: instances started together from one folder (two on a
 * host behind one proxy, after an upgrade) would otherwise build into the same dist/web at once,
 * each emptying it under the other. The others wait, then find it built.
 */
async function buildWebApp() {
  const lock = path.join(root, 'dist', '.web-build.lock')
  try {
    fs.mkdirSync(path.dirname(lock), { recursive: true })
    let waiting = false
    while (!takeLock(lock)) {
      if (!waiting) console.log('Waiting for the web app build of another start in this folder...')
      waiting = true
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  } catch (error) {
    if (!['EACCES', 'EPERM', 'EROFS'].includes(error.code)) throw error
    console.error(
      `\nCannot start: the web app in ${path.dirname(stamp)} is missing or older than its sources, and this user may not build it there. ` +
        'Run `npm run build` as the owner of this folder (once per release), then start again.\n',
    )
    process.exit(1)
  }
  try {
    if (!stale()) return // built by the start it waited for
    console.log('Building the web app (first start, or sources changed)...')
    const build = spawnSync(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], { cwd: root, stdio: 'inherit' })
    if (build.status !== 0) process.exit(build.status ?? 1)
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
    // An empty file is a start between creating the lock and writing its number, unless it is old.
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

// tsconfig.json named, not looked up from the working directory: its `~server` and `~shared`
// import aliases must resolve wherever `npm start` is run from.
const { register } = await import('tsx/esm/api')
register({ tsconfig: path.join(root, 'tsconfig.json') })
await import(path.join(root, 'src', 'server', 'main.ts'))
