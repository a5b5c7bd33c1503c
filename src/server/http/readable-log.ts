/**
 * The log as a developer reads it in a terminal: one short line per API request
 * (`12:04:31 POST /api/auth/login 200 41 ms`), nothing for the web app's files, and every other
 * entry as its time, level, message and a few fields. It reformats the JSON lines pino writes,
 * after the redaction of decision 0304 (`hooks.streamWrite` in logging.ts), so it shows no more
 * than the JSON would. Used only in development on a terminal (`LOG_FORMAT`, config/env.ts, decision 0212);
 * production and any log that is piped stay JSON.
 */

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' }
/** Fields every line has, or that the request line already says. */
const QUIET = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'responseTime', 'err'])
/** Requests not yet answered, by id: their method and URL, which the "request completed" line lacks. */
const MAX_PENDING = 1_000

interface Entry {
  level?: number
  time?: number
  msg?: string
  reqId?: string
  req?: { method?: string; url?: string }
  res?: { statusCode?: number }
  responseTime?: number
  err?: { message?: string; stack?: string }
  [field: string]: unknown
}

export interface Colours {
  dim(text: string): string
  warn(text: string): string
  error(text: string): string
}

export const NO_COLOURS: Colours = { dim: (t) => t, warn: (t) => t, error: (t) => t }
export const TERMINAL_COLOURS: Colours = {
  dim: (t) => `\u001b[2m${t}\u001b[22m`,
  warn: (t) => `\u001b[33m${t}\u001b[39m`,
  error: (t) => `\u001b[31m${t}\u001b[39m`,
}

/** Whether a request's line is worth showing: the API and the server's own pages, not the web app's files. */
const isApiRequest = (url: string) => /^\/(api|metrics|dev)(\/|\?|$)/.test(url)

/** Turns pino's JSON lines into readable ones; returns '' for a line that is left out. */
export function createReadableFormat(colours: Colours = NO_COLOURS): (line: string) => string {
  const pending = new Map<string, { method: string; url: string }>()
  const clock = (time: number | undefined) => colours.dim(new Date(time ?? Date.now()).toTimeString().slice(0, 8))

  return (line) => {
    let entry: Entry
    try {
      entry = JSON.parse(line) as Entry
    } catch {
      return line.endsWith('\n') ? line : `${line}\n`
    }
    if (entry.msg === 'incoming request' && entry.reqId && entry.req) {
      if (pending.size >= MAX_PENDING) pending.clear()
      pending.set(entry.reqId, { method: entry.req.method ?? '?', url: entry.req.url ?? '?' })
      return ''
    }
    if (entry.msg === 'request completed' && entry.reqId) {
      const request = pending.get(entry.reqId)
      pending.delete(entry.reqId)
      if (!request || !isApiRequest(request.url)) return ''
      const status = entry.res?.statusCode ?? 0
      const shown = status >= 500 ? colours.error(String(status)) : status >= 400 ? colours.warn(String(status)) : String(status)
      return `${clock(entry.time)} ${request.method} ${request.url} ${shown} ${colours.dim(`${Math.round(entry.responseTime ?? 0)} ms`)}\n`
    }
    // The server prints its own "Open <APP_URL>" line: Fastify's second address would only confuse.
    if (entry.msg?.startsWith('Server listening at ')) return ''
    const level = LEVELS[entry.level ?? 30] ?? 'INFO'
    const tint = (entry.level ?? 30) >= 50 ? colours.error : (entry.level ?? 30) >= 40 ? colours.warn : (text: string) => text
    const fields = Object.entries(entry)
      .filter(([key]) => !QUIET.has(key))
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    const parts = [clock(entry.time), tint(level.padEnd(5)), entry.msg ?? '', ...(fields.length ? [colours.dim(fields.join(' '))] : [])]
    const error = entry.err ? `\n  ${tint(entry.err.stack ?? entry.err.message ?? '')}` : ''
    return `${parts.join(' ')}${error}\n`
  }
}

/** A destination for pino that writes the readable lines to `out`. */
export function readableDestination(out: NodeJS.WritableStream, colours: Colours): { write(line: string): void } {
  const format = createReadableFormat(colours)
  return {
    write(line) {
      const text = format(line)
      if (text) out.write(text)
    },
  }
}
