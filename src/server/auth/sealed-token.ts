import crypto from 'node:crypto'

/**
 * A token kept in the database in a form only this server can read back: AES-256-GCM under a key
 * derived from AUTH_SECRET (config/secrets.ts). Used for a session's current refresh token, so a
 * replay within the grace gets that same token again (decision 0302); without AUTH_SECRET the
 * stored bytes are worth nothing. Layout: 12-byte IV, 16-byte tag, then the ciphertext.
 */
export class TokenSealer {
  constructor(private readonly key: Buffer) {}

  seal(token: string): Buffer {
    const iv = crypto.randomBytes(12)
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv)
    const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()])
    return Buffer.concat([iv, cipher.getAuthTag(), body])
  }

  /** The token, or null when the bytes were not sealed with this key or were altered. */
  open(sealed: Uint8Array): string | null {
    const raw = Buffer.from(sealed)
    if (raw.length < 29) return null
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12))
      decipher.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    } catch {
      return null
    }
  }
}
