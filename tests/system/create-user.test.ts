import { describe, expect, it } from 'vitest'
import { call, dataFolders, runCommand, startServer, stopServer } from './server-process'

/**
 * `npm run user:create` (src/server/cli/create-user.ts) as an operator runs it. A password given
 * with `--password-stdin` comes through a pipe, where no process list or shell history sees it, and
 * is the one the account signs in with; what cannot be meant is refused before anything is written.
 */
const folder = dataFolders()
const CREATE_USER = 'src/server/cli/create-user.ts'
const PASSWORD = 'Quiet-Harbor-58!'

describe('npm run user:create', () => {
  it('takes the password from standard input with --password-stdin, and the account signs in with it', async () => {
    const env = { DATA_DIR: folder('prepared'), RATE_LIMIT: 'off' }
    const email = 'piped.admin@example.com'
    const created = await runCommand(CREATE_USER, env, ['--email', email, '--role', 'ADMIN', '--name', 'Piped Admin', '--password-stdin'], {
      input: `${PASSWORD}\n`,
    })
    expect(created.code, created.output).toBe(0)
    expect(created.output).toContain(`Created ${email}: ADMIN, ACTIVE, email verified.`)
    expect(created.output).not.toContain('Password (shown only this once)')
    expect(created.output).not.toContain(PASSWORD)

    const refusals = [
      { args: ['--password-stdin', '--password', PASSWORD], input: `${PASSWORD}\n`, says: 'Give the password once: --password-stdin or --password, not both.' },
      { args: ['--password-stdin'], input: '', says: '--password-stdin found no password on standard input.' },
      { args: ['--password-stdin'], input: '\nsecond-line-is-not-read\n', says: '--password-stdin found no password on standard input.' },
      { args: ['--password-stdin'], input: 'short\n', says: 'The password for late.comer@example.com is refused:' },
    ]
    for (const { args, input, says } of refusals) {
      const refused = await runCommand(CREATE_USER, env, ['--email', 'late.comer@example.com', ...args], { input })
      expect(refused.code, refused.output).toBe(1)
      expect(refused.output).toContain(`Cannot create the user: ${says}`)
      expect(refused.output).not.toContain('Created')
    }

    const server = await startServer(env)
    try {
      const signIn = await call(server, 'POST', '/api/auth/login', { email, password: PASSWORD })
      expect(signIn.status).toBe(200)
      expect((await call(server, 'POST', '/api/auth/login', { email: 'late.comer@example.com', password: 'Whatever-It-Was-1!' })).status).toBe(401)
    } finally {
      await stopServer(server)
    }
  })
})
