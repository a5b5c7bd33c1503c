import path from 'node:path'
import { ensureWebApp, webBuildDir } from '../../../scripts/web-build.mjs'

/** The project root. */
export const root = path.resolve(import.meta.dirname, '..', '..', '..')

/**
 * Builds the web app when its bundle is missing or older than its sources, as `npm start` does and
 * with its lock (scripts/web-build.mjs): an `npm start` building in this folder at the same moment
 * is waited for, not built over. Returns why the build failed, or null. Run by the browser tests'
 * global setup alone.
 */
export async function buildWebApp(): Promise<string | null> {
  const build = await ensureWebApp(root, {
    log: () => undefined,
    stdio: 'pipe',
    viteArgs: ['--logLevel', 'warn'],
    // The test runner sets NODE_ENV=test, which would give React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
  })
  if ('unwritable' in build) return `the web app in ${webBuildDir(root)} is out of date and this user may not build it there: run npm run build`
  if ('failed' in build) return `vite build failed:\n${build.output}`
  return null
}
