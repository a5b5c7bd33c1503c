import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { ExplainedError } from '~server/explained-error'

/** A data directory this process cannot use: not writable, a file, or held by another process. */
export class DataDirError extends ExplainedError {}

export class DataDirLockedError extends DataDirError {}

export interface DataDirLock {
  release(): Promise<void>
}

/**
 * Makes sure only one process opens an embedded database directory: two PGlite processes on one
 * directory corrupt it. On Linux the lock is an abstract Unix socket named after the directory,
 * which the kernel frees when the process dies, even by SIGKILL, so a restart never finds a stale
 * lock. Elsewhere a PID file is used, taken over when its process no longer runs.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const real = ensureUsableDataDir(dataDir)
  return process.platform === 'linux' ? lockWithAbstractSocket(real) : lockWithPidFile(real)
}

/**
 * Creates the folder if need be and makes sure this process may write in it; its real path.
 * Said in a sentence at start-up, where it would otherwise be Node's error at the first write.
 */
export function ensureUsableDataDir(dataDir: string): string {
  try {
    fs.mkdirSync(dataDir, { recursive: true })
    fs.accessSync(dataDir, fs.constants.W_OK | fs.constants.X_OK)
    return fs.realpathSync(dataDir)
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    const [why, fix] =
      code === 'EACCES' || code === 'EPERM'
        ? ["this process's user may not create it or write in it", 'Give that user the folder, or set DATA_DIR to one it may write.']
        : code === 'EEXIST' || code === 'ENOTDIR'
          ? ['it, or a folder on its path, is a file', 'Set DATA_DIR to a folder.']
          : code === 'EROFS'
            ? ['its file system is read-only', 'Set DATA_DIR to a writable folder.']
            : [message, 'Set DATA_DIR to a folder this process may write.']
    throw new DataDirError(`The data directory ${dataDir} cannot be used: ${why}. ${fix}`)
  }
}

function refusal(dataDir: string, holder?: string): DataDirLockedError {
  return new DataDirLockedError(
    `Another process${holder ? ` (pid ${holder})` : ''} is already using the data directory ${dataDir}. ` + 'Stop it first, or give this one its own DATA_DIR.',
  )
}

/** How long a second process waits for the holder of the lock to say its pid. */
const HOLDER_ANSWER_MS = 3_000

function lockWithAbstractSocket(dataDir: string): Promise<DataDirLock> {
  const name = '\0accounts-data-dir-' + crypto.createHash('sha256').update(dataDir).digest('hex').slice(0, 40)
  // Answers a second process's probe with this pid. A probe gone before the answer (it stopped
  // waiting) is no error of this server's: without the listener, its reset would end the process.
  const server = net.createServer((socket) => socket.on('error', () => {}).end(String(process.pid)))
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') return reject(error)
      const probe = net.connect({ path: name })
      // A holder too busy (or stopped) to tell its pid within this long is refused without it.
      probe.setTimeout(HOLDER_ANSWER_MS, () => probe.destroy())
      let holder = ''
      probe.on('data', (chunk) => (holder += chunk.toString()))
      probe.on('close', () => reject(refusal(dataDir, holder || undefined)))
      probe.on('error', () => reject(refusal(dataDir)))
    })
    server.listen({ path: name }, () => {
      server.unref()
      resolve({ release: () => new Promise((done) => server.close(() => done())) })
    })
  })
}

async function lockWithPidFile(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, 'server.pid')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' })
      return { release: async () => fs.rmSync(file, { force: true }) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = fs.readFileSync(file, 'utf8').trim()
      if (isRunning(Number(holder))) throw refusal(dataDir, holder)
      fs.rmSync(file, { force: true })
    }
  }
  throw refusal(dataDir)
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
