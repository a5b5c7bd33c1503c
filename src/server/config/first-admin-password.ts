import fs from 'node:fs'
import path from 'node:path'
import { ExplainedError } from '~server/explained-error'

/**
 * Where the generated first administrator's password goes when the output is not a terminal
 * (decision 0014): a file under DATA_DIR that only this process's user may read, never the log,
 * which a collector keeps for years. The log says where the file is.
 */
export const firstAdminPasswordFile = (dataDir: string) => path.join(dataDir, 'secrets', 'first-admin-password')

class FirstAdminPasswordError extends ExplainedError {}

/**
 * Writes the e-mail address and password to that file (mode 600, in a folder of mode 700),
 * replacing one left by an earlier first administrator; its path. Written before the account is,
 * so that a folder it cannot write stops the start with nothing created.
 */
export function keepFirstAdminPassword(dataDir: string, admin: { email: string; password: string }): string {
  const file = firstAdminPasswordFile(dataDir)
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
    fs.rmSync(file, { force: true })
    fs.writeFileSync(file, `email: ${admin.email}\npassword: ${admin.password}\n`, { flag: 'wx', mode: 0o600 })
  } catch (error) {
    throw new FirstAdminPasswordError(
      `The first administrator's password cannot be written to ${file}: ${(error as Error).message}. ` +
        'Set DATA_DIR to a folder this process may write, or set ADMIN_EMAIL and ADMIN_PASSWORD.',
    )
  }
  return file
}

/** Removes the file again when the account was not created after all (another instance made one first). */
export function forgetFirstAdminPassword(file: string): void {
  fs.rmSync(file, { force: true })
}
