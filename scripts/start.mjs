// `npm start`: builds the web app when its bundle is missing or older than its sources, then runs
// the server in this same process (so SIGTERM reaches it directly).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const stamp = path.join(root, 'dist', 'web', 'index.html')
const sources = ['src/web', 'src/shared', 'index.html', 'vite.config.ts', 'public'].map((p) => path.join(root, p))

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0
  const stat = fs.statSync(target)
  if (!stat.isDirectory()) return stat.mtimeMs
  return fs.readdirSync(target).reduce((newest, name) => Math.max(newest, newestMtime(path.join(target, name))), stat.mtimeMs)
}

const hasWebApp = fs.existsSync(path.join(root, 'index.html'))
if (hasWebApp && (!fs.existsSync(stamp) || fs.statSync(stamp).mtimeMs < Math.max(...sources.map(newestMtime)))) {
  console.log('Building the web app (first start, or sources changed)...')
  const build = spawnSync(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], {
    cwd: root,
    stdio: 'inherit',
  })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

// tsconfig.json named, not looked up from the working directory: its `~server` and `~shared`
// import aliases must resolve wherever `npm start` is run from.
const { register } = await import('tsx/esm/api')
register({ tsconfig: path.join(root, 'tsconfig.json') })
await import(path.join(root, 'src', 'server', 'main.ts'))
