import { COSEALG } from '@simplewebauthn/server/helpers'

/**
 * Who we are to a passkey (WebAuthn's "relying party"): the RP ID is APP_URL's host name, and a
 * response is accepted only from APP_URL's exact origin (scheme, host and port). Neither ever
 * comes from the request's Host header.
 */
export interface RelyingParty {
  /** Shown by the browser and the authenticator. */
  name: string
  /** APP_URL's host name: passkeys are scoped to it. */
  id: string
  /** APP_URL's origin, the only one a response may come from. */
  origin: string
}

export const RELYING_PARTY_NAME = 'Accounts'

/**
 * The signature algorithms a new passkey may use, in the order offered: Ed25519, ES256 (what
 * nearly every authenticator makes), RS256 (Windows Hello). The same on every Node.js the product
 * runs on (decision 0566): `@simplewebauthn/server` would also offer ML-DSA-44 first where the
 * runtime verifies it (Node.js 24, not 22), and a passkey made so could not sign in on an instance
 * of the other, during a rolling upgrade or after a step back. A passkey that already uses ML-DSA
 * still signs in where the runtime verifies it.
 */
export const PASSKEY_ALGORITHMS = [COSEALG.EdDSA, COSEALG.ES256, COSEALG.RS256]

export function relyingParty(appUrl: string): RelyingParty {
  const url = new URL(appUrl)
  return { name: RELYING_PARTY_NAME, id: url.hostname, origin: url.origin }
}

/**
 * The user handle a passkey stores for its account: the account's opaque id (never the e-mail),
 * so that a discoverable passkey can name its owner without telling anything about them.
 */
export const userHandleOf = (userId: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(userId, 'utf8'))

/** Whether a response's base64url user handle (when it sends one) names this account. */
export const userHandleMatches = (handle: string | undefined, userId: string): boolean =>
  handle === undefined || handle === Buffer.from(userId, 'utf8').toString('base64url')

/** The challenge a response answers, read from its clientDataJSON; null when that is not readable. */
export function challengeOf(clientDataJSON: string): string | null {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'))
    const challenge = typeof data === 'object' && data !== null ? (data as { challenge?: unknown }).challenge : undefined
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 128 ? challenge : null
  } catch {
    return null
  }
}

/** Transports a browser may name; anything else it sends is dropped. */
const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'])
export const knownTransports = (transports: readonly string[] | undefined): string[] => [...new Set(transports ?? [])].filter((t) => TRANSPORTS.has(t))
