import { parseArgs } from 'node:util'
import { TokenSealer } from '~server/auth/sealed-token'
import { loadConfig } from '~server/config/env'
import { RETIRED_KEY_GRACE_SECONDS, rotateSigningKeys } from '~server/oidc/keys'
import { startRuntime } from '~server/runtime'
import { deriveKeys, loadOrCreateSecret } from '~server/config/secrets'

/**
 * `npm run oidc:rotate-keys`: a new pair of signing keys for Sign in with Accounts (RS256, ES256).
 * Tokens signed with the previous keys keep verifying: those keys stay published in the JWKS for
 * RETIRED_KEY_GRACE_SECONDS, longer than any ID token lives. Running servers pick the new keys up
 * within 30 seconds. Uses the same configuration as `npm start`; with the embedded database the
 * server must be stopped first (one process per data directory).
 */
const usage = 'Usage: npm run oidc:rotate-keys (no options): new signing keys for Sign in with Accounts; the previous ones keep verifying for a while.'

async function main(): Promise<void> {
  // Strict: anything but --help is refused before the keys are touched.
  const { values } = parseArgs({ options: { help: { type: 'boolean' } } })
  if (values.help) {
    console.log(usage)
    process.exit(0)
  }
  const config = loadConfig()
  const runtime = await startRuntime(config, { background: false })
  try {
    const sealer = new TokenSealer(deriveKeys(loadOrCreateSecret(config.authSecret, config.dataDir)).oidcKeySeal)
    const kids = await rotateSigningKeys(runtime.ctx.db, sealer, new Date())
    console.log(`New signing keys: ${kids.join(', ')}.`)
    console.log(`The previous keys stay published for ${RETIRED_KEY_GRACE_SECONDS / 3600} hours, so tokens they signed keep verifying.`)
  } finally {
    await runtime.close()
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `Cannot rotate the keys: ${error.message}` : error)
  process.exit(1)
})
