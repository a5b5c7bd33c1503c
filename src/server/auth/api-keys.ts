import crypto from 'node:crypto'
import zlib from 'node:zlib'
import { API_KEY_PREFIX } from '~shared/schemas/api-keys'

/**
 * API key secrets (decision 0502): `acc_sk_`, 256 random bits in base62 (43 characters), then a
 * CRC-32 of those 43 characters in base62 (6 characters), as GitHub's tokens carry one: a secret
 * scanner recognises a leaked key without asking us, and a mistyped key is refused before any
 * lookup. Only the SHA-256 of the whole secret is stored (256 random bits need no slow hash).
 */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const RANDOM_LENGTH = 43
const CHECKSUM_LENGTH = 6
export const API_KEY_LENGTH = API_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH
/** How much of a key the lists show. */
export const API_KEY_SHOWN_PREFIX = 12

function base62(value: bigint, length: number): string {
  let text = ''
  for (let rest = value; rest > 0n; rest /= 62n) text = BASE62[Number(rest % 62n)] + text
  return text.padStart(length, '0')
}

function checksumOf(random: string): string {
  return base62(BigInt(zlib.crc32(random)), CHECKSUM_LENGTH)
}

export function newApiKeySecret(): string {
  const random = base62(BigInt(`0x${crypto.randomBytes(32).toString('hex')}`), RANDOM_LENGTH)
  return `${API_KEY_PREFIX}${random}${checksumOf(random)}`
}

/** Whether the bearer is meant as one of our keys (it may still be mistyped, or forged). */
export function isApiKeyAttempt(text: string): boolean {
  return text.startsWith(API_KEY_PREFIX)
}

/** Whether the text has the shape of one of our keys and its checksum holds. */
export function looksLikeApiKey(text: string): boolean {
  if (text.length !== API_KEY_LENGTH || !text.startsWith(API_KEY_PREFIX)) return false
  const body = text.slice(API_KEY_PREFIX.length)
  if (!/^[0-9A-Za-z]+$/.test(body)) return false
  const random = body.slice(0, RANDOM_LENGTH)
  return checksumOf(random) === body.slice(RANDOM_LENGTH)
}

export function hashApiKey(secret: string): Buffer {
  return crypto.createHash('sha256').update(secret, 'utf8').digest()
}
