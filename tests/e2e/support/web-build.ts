import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/** The project root and the production web bundle the server serves. */
export const root = path.resolve(import.meta.dirname, '..', '..', '..')
export const webDir = path.join(root, 'dist', 'web')
const SOURCES = ['src/web', 'src/shared', 'index.html', 'vite.config.ts', 'public']

function newestMtime(target: string): number {
  if (!fs.existsSync(target)) return 0
  const stat = fs.statSync(target)
  if (!stat.isDirectory()) return stat.mtimeMs
  return fs.readdirSync(target).reduce((newest, name) => Math.max(newest, newestMtime(path.join(target, name))), stat.mtimeMs)
}

/**
 * Builds the web app when its bundle is missing or older than its sources (as `npm start` does).
 * Returns why the build failed, or null. Run by the browser tests' global setup alone: two builds
 * at once would empty the folder a running server serves from.
 */
export function buildWebApp(): string | null {
  const stamp = path.join(webDir, 'index.html')
  const newest = Math.max(...SOURCES.map((source) => newestMtime(path.join(root, source))))
  if (fs.existsSync(stamp) && fs.statSync(stamp).mtimeMs >= newest) return null
  const build = spawnSync(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: root,
    encoding: 'utf8',
    // The test runner sets NODE_ENV=test, which would give React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
  })
  return build.status === 0 ? null : `vite build failed:\n${build.stdout}\n${build.stderr}`
}
