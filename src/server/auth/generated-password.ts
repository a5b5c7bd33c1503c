import crypto from 'node:crypto'

/** A random password (about 120 bits) that also satisfies the composition rule. */
export function generatePassword(): string {
  const letters = crypto.randomBytes(15).toString('base64url').replace(/[-_]/g, 'x')
  return `${letters}-Aa9!`
}
