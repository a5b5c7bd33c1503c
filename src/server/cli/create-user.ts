import { parseArgs } from 'node:util'
import { ROLES, type Role } from '~shared/constants'
import { emailField } from '~shared/schemas/fields'
import { loadConfig } from '~server/config/env'
import { AccountInputError, ensureAccount } from '~server/use-cases/ensure-account'
import { startRuntime } from '~server/runtime'

/**
 * `npm run user:create -- --email someone@example.com --role ADMIN [--name "Full Name"] [--password ...]`
 * Makes sure the account exists with that role, ACTIVE and verified. Without --password a new
 * account gets a random one, printed once. Uses the same configuration as `npm start`; with the
 * embedded database the server must be stopped first (one process per data directory).
 */
const usage = 'Usage: npm run user:create -- --email <address> [--role ADMIN|DEVELOPER|MODERATOR|CLIENT] [--name <name>] [--password <password>]'

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      email: { type: 'string' },
      role: { type: 'string', default: 'CLIENT' },
      name: { type: 'string' },
      password: { type: 'string' },
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

  const runtime = await startRuntime(loadConfig(), { background: false })
  try {
    const result = await ensureAccount(runtime.ctx, {
      email: email.data,
      role,
      ...(values.name ? { name: values.name } : {}),
      ...(values.password ? { password: values.password } : {}),
      reason: 'Created from the command line',
    })
    console.log(`${result.created ? 'Created' : 'Updated'} ${email.data}: ${role}, ACTIVE, email verified.`)
    if (result.generatedPassword) console.log(`Password (shown only this once): ${result.generatedPassword}`)
  } finally {
    await runtime.close()
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error && error.constructor !== Error ? `Cannot create the user: ${error.message}` : error)
  process.exit(1)
})
