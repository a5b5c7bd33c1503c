// What `npm start` and `npm run dev` check before anything else, so that a newcomer hears what to
// do instead of a module error: a Node.js the product runs on (package.json's `engines`; Debian
// 12's own package is 18), and the dependencies installed.
import fs from 'node:fs'
import path from 'node:path'

/** What stops the product from starting here, in a sentence; null when nothing does. */
export function preflightProblem(root, version = process.versions.node) {
  const { engines } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const [, floorMajor, floorMinor] = /^>=(\d+)\.(\d+)/.exec(engines.node).map(Number)
  const [major, minor] = version.split('.').map(Number)
  if (major < floorMajor || (major === floorMajor && minor < floorMinor)) {
    return `this is Node.js ${version}, and the product needs ${floorMajor}.${floorMinor} or later (24 LTS is the one to use)`
  }
  if (!fs.existsSync(path.join(root, 'node_modules', 'tsx', 'package.json'))) return 'its dependencies are not installed. Run `npm ci` first, then start again'
  return null
}

export function preflight(root) {
  const problem = preflightProblem(root)
  if (!problem) return
  console.error(`\nCannot start: ${problem}.\n`)
  process.exit(1)
}
