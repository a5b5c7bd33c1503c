import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { inject } from 'vitest'
import { preparedDataDir } from '../../support/global-data-dir'
import { createPostgresDatabase, freePort, startServer as startProcess, stopServer } from '../../support/server-process'
import { type Mailbox, startMailbox } from '../../support/mailbox'

/**
 * The real server for browser tests, started as `npm start` starts it (`node --import tsx
 * src/server/main.ts` on the built web app) on a free port, with its own data folder, a real SMTP
 * server catching its mail, throttling off and a known administrator. The database is the
 * embedded one, or a fresh database on the PostgreSQL server named by TEST_DATABASE_URL.
 * Stopping it removes the folder, the database and the mailbox.
 */

export interface RunningServer {
  url: string
  dataDir: string
  admin: { email: string; password: string }
  /** The mail the server sent, as an SMTP server received it. */
  mail: Mailbox
  /** Everything the server printed. */
  output(): string
  stop(): Promise<void>
}

export const E2E_ADMIN = { email: 'e2e-admin@example.com', password: 'Vivid-Kettle-42!' }

/**
 * `host` names the server in its address and APP_URL: 127.0.0.1 unless told otherwise. Passkey
 * tests use `localhost`, because WebAuthn refuses an IP address as the relying party's id.
 */
export async function startServer(options: { env?: Record<string, string>; host?: 'localhost' | '127.0.0.1' } = {}): Promise<RunningServer> {
  // Built once for the run by the global setup (global-setup.ts).
  const webBuildError = inject('webBuildError')
  if (webBuildError) throw new Error(webBuildError)
  const serverUrl = process.env.TEST_DATABASE_URL
  // The embedded database comes already created and migrated (tests/support/global-data-dir.ts).
  const dataDir = serverUrl ? fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-e2e-')) : preparedDataDir('accounts-e2e-')
  const mail = await startMailbox()
  const database = serverUrl ? await createPostgresDatabase(serverUrl, 'accounts_e2e') : null
  const cleanUp = async () => {
    await mail.close()
    await database?.drop()
    fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
  }

  const port = await freePort()
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`
  let server
  try {
    server = await startProcess(
      {
        NODE_ENV: 'development',
        PORT: String(port),
        APP_URL: url,
        DATA_DIR: dataDir,
        ADMIN_EMAIL: E2E_ADMIN.email,
        ADMIN_PASSWORD: E2E_ADMIN.password,
        DATABASE_URL: database?.url ?? '',
        REDIS_URL: process.env.TEST_REDIS_URL ?? '',
        SMTP_URL: mail.smtpUrl,
        ...options.env,
      },
      { inheritEnv: true },
    )
  } catch (error) {
    await cleanUp()
    throw error
  }
  const running = server
  return {
    url,
    dataDir,
    admin: E2E_ADMIN,
    mail,
    output: () => running.output(),
    async stop() {
      await stopServer(running, 'SIGTERM', 10_000).catch(() => {})
      await cleanUp()
    },
  }
}
