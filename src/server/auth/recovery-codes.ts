import crypto from 'node:crypto'
import { normalizeRecoveryCode } from '~shared/schemas/two-factor'

/**
 * Recovery codes: 10 per set, each 16 characters of a 32-letter alphabet (80 random bits), shown
 * as `xxxx-xxxx-xxxx-xxxx`. Stored as SHA-256 hashes: a fast hash is enough for 80 random bits,
 * which no one can search however fast each guess is (decision 0316). Typed codes are
 * normalised first (`normalizeRecoveryCode`).
 */
export const RECOVERY_CODE_COUNT = 10
/** Crockford's base32: no i, l, o or u, so nothing reads as another letter. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
const LENGTH = 16

function randomCode(): string {
  const bytes = crypto.randomBytes(LENGTH)
  // 256 is a multiple of 32: every byte maps onto the alphabet without bias.
  const letters = Array.from(bytes, (byte) => ALPHABET[byte % 32]!).join('')
  return letters.match(/.{4}/g)!.join('-')
}

export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, randomCode)

export const hashRecoveryCode = (code: string): Buffer => crypto.createHash('sha256').update(normalizeRecoveryCode(code)).digest()
