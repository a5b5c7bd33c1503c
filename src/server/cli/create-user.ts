import { parseArgs } from 'node:util'
import { ROLES, type Role } from '~shared/constants'
import { emailField } from '~shared/schemas/fields'
import { loadConfig } from '~server/config/env'
import { AccountInputError, ensureAccount } from '~server/use-cases/users/ensure-account'
import { startRuntime } from '~server/runtime'

/**
 * `npm run user:create -- --email someone@example.com --role ADMIN [--name "Full Name"] [--password-stdin | --password ...]`
 * Makes sure the account exists with that role, ACTIVE and verified. Without a password a new
 * account gets a random one, printed once. `--password-stdin` reads it from a pipe, where no
 * process list or shell history sees it (as `docker login` does); `--password` puts it on the
 * command line, for a throwaway machine. Uses the same configuration as `npm start`; with the
 * embedded database the server must be stopped first (one process per data directory).
 */
const usage =
  'Usage: npm run user:create -- --email <address> [--role ADMIN|DEVELOPER|MODERATOR|CLIENT] [--name <name>] [--password-stdin | --password <password>]\n' +
  '  --password-stdin  read the password from standard input: printf \'%s\\n\' "$PASSWORD" | npm run user:create -- --email <address> --password-stdin\n' +
  '  (without a password, a new account gets a generated one, printed once)'

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      email: { type: 'string' },
      role: { type: 'string', default: 'CLIENT' },
      name: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  })
  if (values.help || !values.email) {
    console.log(usage)
    process.exit(values.help ? 0 : 2)
  }
  const email = emailField.safeParse(values.email)
  if (!email.success) throw new AccountInputError(`"${values.email}" is not a valid email address.`)
  const role = values.role!.toUpperCase() as Role
  if (!ROLES.includes(role)) throw new AccountInputError(`Unknown role "${values.role}". ${usage}`)
  if (values['password-stdin'] && values.password !== undefined) throw new AccountInputError('Give the password once: --password-stdin or --password, not both.')
  const password = values['password-stdin'] ? await passwordFromStdin() : values.password

  const runtime = await startRuntime(loadConfig(), { background: false })
  try {
    const result = await ensureAccount(runtime.ctx, {
      email: email.data,
      role,
      ...(values.name ? { name: values.name } : {}),
      ...(password !== undefined ? { password } : {}),
      reason: 'Created from the command line',
    })
    console.log(`${result.created ? 'Created' : 'Updated'} ${email.data}: ${role}, ACTIVE, email verified.`)
    if (result.generatedPassword) console.log(`Password (shown only this once): ${result.generatedPassword}`)
  } finally {
    await runtime.close()
  }
}

/** The first line of standard input, which must be a pipe or a file: typed at a terminal, it would show on the screen. */
async function passwordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new AccountInputError('--password-stdin reads the password from a pipe or a file, not from the terminal. Leave it out to have one generated and printed once.')
  }
  let input = ''
  for await (const chunk of process.stdin) input += String(chunk)
  const password = input.split(/\r?\n/)[0]!
  if (password === '') throw new AccountInputError('--password-stdin found no password on standard input.')
  return password
}

main().catch((error: unknown) => {
  console.error(error instanceof Error && error.constructor !== Error ? `Cannot create the user: ${error.message}` : error)
  process.exit(1)
})
