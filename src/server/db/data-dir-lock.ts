import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

/**
 * Makes sure only one process opens an embedded database directory: two PGlite processes on one
 * directory corrupt it. On Linux the lock is an abstract Unix socket named after the directory,
 * which the kernel frees when the process dies, even by SIGKILL, so a restart never finds a stale
 * lock. Elsewhere a PID file is used, taken over when its process no longer runs.
 */
export class DataDirLockedError extends Error {}

export interface DataDirLock {
  release(): Promise<void>
}

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  fs.mkdirSync(dataDir, { recursive: true })
  const real = fs.realpathSync(dataDir)
  return process.platform === 'linux' ? lockWithAbstractSocket(real) : lockWithPidFile(real)
}

function refusal(dataDir: string, holder?: string): DataDirLockedError {
  return new DataDirLockedError(
    `Another process${holder ? ` (pid ${holder})` : ''} is already using the data directory ${dataDir}. ` + 'Stop it first, or give this one its own DATA_DIR.',
  )
}

function lockWithAbstractSocket(dataDir: string): Promise<DataDirLock> {
  const name = '\0accounts-data-dir-' + crypto.createHash('sha256').update(dataDir).digest('hex').slice(0, 40)
  const server = net.createServer((socket) => socket.end(String(process.pid)))
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') return reject(error)
      const probe = net.connect({ path: name })
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
