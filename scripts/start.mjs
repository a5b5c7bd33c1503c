// `npm start`: builds the web app when its bundle is missing or older than its sources, then runs
// the server in this same process (so SIGTERM reaches it directly).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { preflight } from './preflight.mjs'
import { ensureWebApp, webBuildDir } from './web-build.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
preflight(root)
if (fs.existsSync(path.join(root, 'index.html'))) {
  const build = await ensureWebApp(root)
  if (build.unwritable) {
    console.error(
      `\nCannot start: the web app in ${webBuildDir(root)} is missing or older than its sources, and this user may not build it there. ` +
        'Run `npm run build` as the owner of this folder (once per release), then start again.\n',
    )
    process.exit(1)
  }
  if (build.failed) process.exit(build.failed)
}

// tsconfig.json named, not looked up from the working directory: its `~server` and `~shared`
// import aliases must resolve wherever `npm start` is run from.
const { register } = await import('tsx/esm/api')
register({ tsconfig: path.join(root, 'tsconfig.json') })
await import(path.join(root, 'src', 'server', 'main.ts'))
