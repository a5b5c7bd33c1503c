import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { ConfigError } from './env'

/**
 * Keys derived from AUTH_SECRET, one per use, so that a token of one kind can never pass as
 * another. Without AUTH_SECRET a random secret is generated once and kept under DATA_DIR.
 */
export interface Keys {
  accessToken: Uint8Array
  csrf: Buffer
  /** Encrypts queued jobs, which hold one-time links (the name of the derivation predates the job queue). */
  jobPayload: Buffer
  /** Seals a session's current refresh token for replays within the grace (auth/sealed-token.ts). */
  refreshTokenSeal: Buffer
  /** Signs the device cookies that let a browser used before past the account's sign-in limit. */
  deviceToken: Buffer
  /** Seals authenticator-app secrets at rest (auth/totp.ts, decision 0315). */
  totpSecretSeal: Buffer
  /** Seals the OpenID Connect provider's signing and cookie keys at rest (oidc/keys.ts). */
  oidcKeySeal: Buffer
  /** Seals identity providers' client secrets at rest (data/identity-providers, decision 0510). */
  identityProviderSecretSeal: Buffer
  /** Seals webhook signing secrets at rest (data/webhooks/webhooks.ts). */
  webhookSecretSeal: Buffer
}

const MIN_SECRET_BYTES = 32

export function parseSecret(value: string): Buffer {
  const trimmed = value.trim()
  const bytes = /^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0 ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64')
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new ConfigError(`AUTH_SECRET must hold at least ${MIN_SECRET_BYTES} random bytes, written in hex or base64.`)
  }
  return bytes
}

/** The secret from the environment, else the one kept under DATA_DIR (created on first start). */
export function loadOrCreateSecret(authSecret: string | undefined, dataDir: string): Buffer {
  if (authSecret) return parseSecret(authSecret)
  const file = path.join(dataDir, 'secrets', 'auth-secret')
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  try {
    fs.writeFileSync(file, crypto.randomBytes(48).toString('hex') + '\n', { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  return parseSecret(fs.readFileSync(file, 'utf8'))
}

export function deriveKeys(secret: Buffer): Keys {
  const derive = (purpose: string) => Buffer.from(crypto.hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32))
  return {
    accessToken: new Uint8Array(derive('accounts access token v1')),
    csrf: derive('accounts csrf token v1'),
    jobPayload: derive('accounts mail payload v1'),
    refreshTokenSeal: derive('accounts refresh token seal v1'),
    deviceToken: derive('accounts device token v1'),
    totpSecretSeal: derive('accounts totp secret seal v1'),
    oidcKeySeal: derive('accounts oidc key seal v1'),
    identityProviderSecretSeal: derive('accounts identity provider secret seal v1'),
    webhookSecretSeal: derive('accounts webhook secret seal v1'),
  }
}
