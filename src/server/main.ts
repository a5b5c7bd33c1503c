import fs from 'node:fs'
import path from 'node:path'
import { buildApp } from './app'
import { loadConfig } from '~server/config/env'
import { webBuildDir } from '~server/config/paths'
import { isLoopbackHost } from '~shared/loopback'
import { checkFirstAdminSettings, ensureFirstAdmin } from '~server/use-cases/users/ensure-account'
import { ExplainedError } from '~server/explained-error'
import { forgetFirstAdminPassword, keepFirstAdminPassword } from '~server/config/first-admin-password'
import { jsonLine, say, warningsInLogFormat } from '../../scripts/log-format.mjs'
import { readableLog, type Runtime, startRuntime } from './runtime'

/**
 * `npm start`: one process serving the web app and the API. Says where it listens and, the
 * first time, where the generated admin's credentials are. SIGTERM stops accepting, lets requests
 * in flight finish, closes the database and exits 0. Everything it writes is in its log's format
 * (decision 0212): JSON lines, or in development on a terminal lines a person reads.
 */
const SHUTDOWN_TIMEOUT_MS = 10_000

async function main(): Promise<void> {
  warningsInLogFormat()
  const config = loadConfig()
  checkFirstAdminSettings(config)
  const runtime: Runtime = await startRuntime(config)
  const { ctx } = runtime
  const readable = readableLog(config)
  // Readiness answers 503 until the work below that follows the listen is done (decision 0016).
  ctx.startingUp = true

  const webDir = webBuildDir()
  const hasWeb = fs.existsSync(path.join(webDir, 'index.html'))
  const outboxPage = config.env !== 'production' && runtime.mailTransport.kind === 'outbox' && isLoopbackHost(config.host)
  const app = await buildApp(ctx, { ...(hasWeb ? { webDir } : {}), outboxPage })

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    ctx.log.info({ signal }, 'shutting down')
    const timer = setTimeout(() => {
      ctx.log.error('shutdown took too long, exiting')
      process.exit(1)
    }, SHUTDOWN_TIMEOUT_MS)
    timer.unref()
    // A kept-alive connection whose request finishes during the shutdown would otherwise stay open
    // (and hold the close) until its keep-alive timeout: close each one as soon as it is idle.
    const closeIdle = setInterval(() => app.server.closeIdleConnections(), 50)
    try {
      await app.close()
      clearInterval(closeIdle)
      await runtime.close()
      process.exit(0)
    } catch (error) {
      ctx.log.error({ err: error }, 'shutdown failed')
      process.exit(1)
    }
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))

  // What a start that gets no further than this must undo: the database is closed, not left open.
  const giveUp = async (error: unknown): Promise<never> => {
    await app.close().catch(() => undefined)
    await runtime.close()
    throw error
  }
  await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => giveUp(listenRefusal(error, config.host, config.port)))
  // The first administrator is created once the port is ours: a start that cannot listen (another
  // program on port 3000, say) must not create an account whose password it never gives. A
  // generated password is printed only to a terminal; anywhere else (a collected log, readable or
  // not) it goes to a file only this user may read, and the log says where (decision 0014).
  const toTerminal = readable && process.stdout.isTTY === true
  let passwordFile: string | undefined
  const keep = toTerminal ? undefined : (generated: { email: string; password: string }) => void (passwordFile = keepFirstAdminPassword(config.dataDir, generated))
  const admin = await ensureFirstAdmin(ctx, keep ? { keep } : {}).catch(giveUp)
  if (passwordFile && !admin?.password) forgetFirstAdminPassword(passwordFile)
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  // One address to open, the one every e-mailed link uses (APP_URL); the server's own address
  // (127.0.0.1 by default) is given as a port and an interface, not as a second address.
  const here = isLoopbackHost(config.host) ? `http://localhost:${port}` : `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`
  const appUrl = new URL(config.appUrl)
  const servedHere = appUrl.port === String(port) && isLoopbackHost(appUrl.hostname)
  const where = isLoopbackHost(config.host) ? 'this machine only' : `interface ${config.host}`
  const listening = `${config.appName} is listening on port ${port} (${where}). Open ${config.appUrl}`
  // Each as a readable line's label and a JSON line's field.
  const details: [label: string, field: string, value: string][] = [
    ['database', 'database', ctx.dbKind === 'pglite' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'],
    ['mail', 'mail', runtime.mailTransport.kind === 'smtp' ? 'SMTP (SMTP_URL)' : `outbox in ${path.join(config.dataDir, 'outbox')}`],
    ...(outboxPage ? [['outbox page', 'outboxPage', `${servedHere ? config.appUrl : here}/dev/outbox`] as [string, string, string]] : []),
    ...(hasWeb ? [] : [['web app', 'webApp', 'not built (run `npm run build`, or `npm run dev` for development)'] as [string, string, string]]),
  ]
  ctx.startingUp = false
  // Said whatever LOG_LEVEL is (where to go, and the first administrator, are not diagnostics),
  // in one write, so that whoever reads up to the first line has the second too.
  const created = admin?.password
    ? passwordFile
      ? `First administrator created: ${admin.email}. Its password is in ${passwordFile}, which only this user may read: sign in with it, change the password under Profile, then delete the file.`
      : ['First administrator created. Sign in with:', `  email:    ${admin.email}`, `  password: ${admin.password}`, 'This password is shown only this once.'].join('\n')
    : undefined
  if (readable) {
    const text = ['', listening, ...details.map(([label, , value]) => `  ${label}: ${value}`), ...(created ? ['', created] : [])]
    console.log(text.join('\n') + '\n')
  } else {
    process.stdout.write(
      jsonLine('info', listening, { port, host: config.host, appUrl: config.appUrl, ...Object.fromEntries(details.map(([, field, value]) => [field, value])) }) +
        (created && admin ? jsonLine('info', created, { email: admin.email, passwordFile }) : ''),
    )
  }
}

/** A port or address this process cannot listen on. */
class ListenError extends ExplainedError {}

function listenRefusal(error: unknown, host: string, port: number): unknown {
  const where = `port ${port} on ${host}`
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new ListenError(`Another program is already listening on ${where}. Stop it, or give this server another port, for example PORT=${port + 1}.`)
    case 'EACCES':
      return new ListenError(`This process may not listen on ${where}: ports below 1024 need privileges. Use a higher PORT, behind the reverse proxy.`)
    case 'EADDRNOTAVAIL':
      return new ListenError(`${host} is not an address of this machine: set HOST to one of its addresses (0.0.0.0 for all of them).`)
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ListenError(`The host name ${host} does not resolve here: set HOST to one of this machine's addresses (0.0.0.0 for all of them).`)
    default:
      return error
  }
}

main().catch((error: unknown) => {
  // Before the configuration is read (or when it is refused), the format is LOG_FORMAT's as set.
  if (error instanceof ExplainedError) {
    say('fatal', `Cannot start: ${error.message}`, { text: `\nCannot start: ${error.message}\n` })
  } else {
    const { name, message, stack } = error instanceof Error ? error : { name: 'Error', message: String(error), stack: undefined }
    say('fatal', `Cannot start: ${message}`, { fields: { err: { type: name, message, stack } }, text: stack ?? message })
  }
  process.exit(1)
})
