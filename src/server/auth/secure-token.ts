import crypto from 'node:crypto'

/** 256-bit random tokens, handed out once and stored only as their SHA-256 hash. */
export function generateToken(): string {
  return crypto.randomBytes(32).toString('base64url')
}

export function hashToken(token: string): Buffer {
  return crypto.createHash('sha256').update(token).digest()
}
