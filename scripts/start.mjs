// `npm start`: builds the web app when its bundle is missing or older than its sources, then runs
// the server in this same process (so SIGTERM reaches it directly).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { logIsReadable, say, warningsInLogFormat } from './log-format.mjs'
import { preflight } from './preflight.mjs'
import { ensureWebApp, webBuildDir } from './web-build.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// Everything this process writes is in its log's format (decision 0212), from the first line.
warningsInLogFormat()
preflight(root)
if (fs.existsSync(path.join(root, 'index.html'))) {
  // In a JSON log, Vite's own output is kept, and given in one line only if the build fails.
  const readable = logIsReadable()
  const build = await ensureWebApp(root, readable ? {} : { log: (line) => say('info', line), stdio: 'pipe' })
  if (build.unwritable) {
    const sentence =
      `Cannot start: the web app in ${webBuildDir(root)} is missing or older than its sources, and this user may not build it there. ` +
      'Run `npm run build` as the owner of this folder (once per release), then start again.'
    say('fatal', sentence, { text: `\n${sentence}\n` })
    process.exit(1)
  }
  if (build.failed) {
    if (!readable) say('fatal', 'Cannot start: the web app could not be built', { fields: { output: build.output } })
    process.exit(build.failed)
  }
  if (build.built && !readable) say('info', 'The web app is built')
}

// tsconfig.json named, not looked up from the working directory: its `~server` and `~shared`
// import aliases must resolve wherever `npm start` is run from.
const { register } = await import('tsx/esm/api')
register({ tsconfig: path.join(root, 'tsconfig.json') })
await import(path.join(root, 'src', 'server', 'main.ts'))
