// What `npm start`, `npm run dev` and the other commands (preflight-command.mjs) check before
// anything else, so that a newcomer hears what to do instead of a module error: a Node.js the
// product runs on (package.json's `engines`; Debian 12's own package is 18, and 20 reached its end
// of life), and the dependencies installed.
import fs from 'node:fs'
import path from 'node:path'
import { say } from './log-format.mjs'

/** What stops the product from starting here, in a sentence; null when nothing does. */
export function preflightProblem(root, version = process.versions.node, verb = 'start') {
  const { engines } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const [, floorMajor, floorMinor] = /^>=(\d+)\.(\d+)/.exec(engines.node).map(Number)
  const [major, minor] = version.split('.').map(Number)
  if (major < floorMajor || (major === floorMajor && minor < floorMinor)) {
    return `this is Node.js ${version}, and the product needs ${floorMajor}.${floorMinor} or later (24 LTS is the one to use)`
  }
  if (!fs.existsSync(path.join(root, 'node_modules', 'tsx', 'package.json')))
    return `its dependencies are not installed. Run \`npm ci\` first, then ${verb === 'start' ? 'start' : 'run the command'} again`
  return null
}

/**
 * Says what stops `npm start` (verb `start`, in its log's format) or a command (`run`, to the person
 * who typed it) and exits, or returns.
 */
export function preflight(root, verb = 'start') {
  const problem = preflightProblem(root, process.versions.node, verb)
  if (!problem) return
  const sentence = `Cannot ${verb}: ${problem}.`
  if (verb === 'start') say('fatal', sentence, { text: `\n${sentence}\n` })
  else console.error(`\n${sentence}\n`)
  process.exit(1)
}
