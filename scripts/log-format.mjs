// One log format per destination (decision 0212): JSON lines, or lines a person reads. Everything
// `npm start` writes follows it: the server's log, and what is said outside that log (the preflight,
// the web app's build, the start-up lines, a start that fails, Node.js's own warnings), so that a
// log collector reading a JSON log meets nothing it cannot parse. Node.js built-ins only: the
// preflight uses it before the dependencies are known to be installed.
import os from 'node:os'

const LEVELS = { info: 30, warn: 40, error: 50, fatal: 60 }

/**
 * Whether the log is readable: LOG_FORMAT says so, or, unset (or not a format), in development
 * (NODE_ENV unset or `development`) on a terminal. Anything else (production, a pipe, systemd, a
 * container) is JSON.
 */
export function logIsReadable(env = process.env, stdout = process.stdout) {
  if (env.LOG_FORMAT === 'readable' || env.LOG_FORMAT === 'json') return env.LOG_FORMAT === 'readable'
  return (env.NODE_ENV || 'development') === 'development' && stdout.isTTY === true
}

/** One line as the server's JSON log writes it (pino's fields), for what is said outside that log. */
export function jsonLine(level, msg, fields = {}) {
  return `${JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, hostname: os.hostname(), ...fields, msg })}\n`
}

/**
 * Says one thing in this destination's format: in JSON, `message` with `fields` as one line; else
 * `text` (the message by default) as it is. Warnings and worse go to standard error.
 */
export function say(level, message, { fields = {}, text = message, env = process.env } = {}) {
  const stream = LEVELS[level] >= LEVELS.warn ? process.stderr : process.stdout
  stream.write(logIsReadable(env) ? `${text}\n` : jsonLine(level, message, fields))
}

/** In a JSON log, Node.js's own warnings (deprecations, experimental features) as JSON lines too. */
export function warningsInLogFormat(env = process.env) {
  if (logIsReadable(env)) return
  process.removeAllListeners('warning')
  process.on('warning', (warning) => {
    process.stderr.write(jsonLine('warn', warning.message, { warning: warning.name, ...(warning.code ? { code: warning.code } : {}) }))
  })
}
