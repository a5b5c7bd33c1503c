import crypto from 'node:crypto'
import { promisify } from 'node:util'
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2'
import { hash as bcryptHash, verify as bcryptVerify } from '@node-rs/bcrypt'

/**
 * Password hashes made by other systems (decision 0551), read in one place: what an import brings
 * and what the sign-in finds stored are parsed here, before anything else reads them.
 *
 * Accepted, each within bounds that keep one check under about a second and 256 MiB:
 * - bcrypt in modular crypt form, `$2a$`, `$2b$`, `$2y$` (cost 4 to 14);
 * - PBKDF2 with SHA-1, SHA-256 or SHA-512 in the PHC form of the reference library
 *   (`$pbkdf2-sha256$i=27500$<salt>$<hash>`) or passlib's (`$pbkdf2-sha256$27500$<salt>$<hash>`,
 *   its base64 with `.` for `+`; `$pbkdf2$` is its SHA-1);
 * - scrypt in PHC form (`$scrypt$ln=15,r=8,p=1$<salt>$<hash>`, passlib's too);
 * - Argon2id, Argon2i and Argon2d in PHC form (`$argon2id$v=19$m=65536,t=3,p=4$<salt>$<hash>`).
 *
 * PBKDF2 and scrypt are stored in the reference PHC form whatever form they came in; bcrypt and
 * Argon2 as they came. Every hash has a `kind`, its algorithm with every parameter its cost depends
 * on: all hashes of one kind cost the same to check (the failure padding of decision 0552).
 */
export type HashScheme = 'bcrypt' | 'pbkdf2-sha1' | 'pbkdf2-sha256' | 'pbkdf2-sha512' | 'scrypt' | 'argon2id' | 'argon2i' | 'argon2d'

export interface ForeignHash {
  scheme: HashScheme
  /** The form in which it is stored: modular crypt (bcrypt) or a PHC string. */
  stored: string
  /** The algorithm and its cost parameters, e.g. `bcrypt cost=10`: every hash of a kind costs the same to check. */
  kind: string
  /** A PostgreSQL regular expression matching the stored form of every hash of this kind. */
  pattern: string
}

/** Why a hash cannot be imported, in words for the import's report. */
export interface HashProblem {
  problem: string
}

const BCRYPT_COST = { min: 4, max: 14 }
const PBKDF2_ITERATIONS_MAX = 5_000_000
/** PBKDF2's cost is its iterations times the blocks of output: at most this many HMAC rounds in all. */
const PBKDF2_WORK_MAX = 10_000_000
const SALT_BYTES = { min: 8, max: 64 }
const OUTPUT_BYTES = { min: 16, max: 128 }
const MEMORY_MAX_BYTES = 256 * 1024 * 1024
const ARGON2 = { timeMax: 20, parallelismMax: 16 }
const SCRYPT = { logNMax: 20, rMax: 32, pMax: 16 }

const DIGEST_BYTES = { sha1: 20, sha256: 32, sha512: 64 } as const
type Digest = keyof typeof DIGEST_BYTES

const regexEscape = (text: string) => text.replace(/[$.^*+?()[\]{}|\\]/g, '\\$&')
/** How many characters unpadded base64 takes for this many bytes. */
const base64Length = (bytes: number) => Math.ceil((bytes * 4) / 3)
const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '')

/**
 * Base64 as PHC strings (no padding), passlib (`.` for `+`) and Keycloak (padded) write it. Node's
 * own decoder skips what it does not know, so the alphabet is checked first.
 */
function decodeBase64(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/.]*={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1) return null
  return Buffer.from(text.replace(/\./g, '+'), 'base64')
}

function inRange(value: number, min: number, max: number): boolean {
  return Number.isSafeInteger(value) && value >= min && value <= max
}

const problem = (text: string): HashProblem => ({ problem: text })

/** Reads a hash another system made; a problem when its format is unknown or its parameters out of bounds. */
export function readForeignHash(text: string): ForeignHash | HashProblem {
  if (text.length > 512) return problem('the password hash is longer than any known format')
  if (/^\$2[aby]\$/.test(text)) return readBcrypt(text)
  if (/^\$pbkdf2(-sha(1|256|512))?\$/.test(text)) return readPbkdf2(text)
  if (text.startsWith('$scrypt$')) return readScrypt(text)
  if (/^\$argon2(id|i|d)\$/.test(text)) return readArgon2(text)
  return problem('unknown password hash format')
}

export const isHashProblem = (value: ForeignHash | HashProblem): value is HashProblem => 'problem' in value

function readBcrypt(text: string): ForeignHash | HashProblem {
  const match = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/.exec(text)
  if (!match) return problem('malformed bcrypt hash')
  const cost = Number(match[1])
  if (!inRange(cost, BCRYPT_COST.min, BCRYPT_COST.max)) return problem(`bcrypt cost ${cost} is outside ${BCRYPT_COST.min} to ${BCRYPT_COST.max}`)
  const costText = match[1]!
  return { scheme: 'bcrypt', stored: text, kind: `bcrypt cost=${cost}`, pattern: `^\\$2[aby]\\$${costText}\\$` }
}

/** PBKDF2 from its parts (also how Keycloak's credentials arrive, formats/keycloak.ts). */
export function pbkdf2Hash(digest: Digest, iterations: number, salt: Buffer, hash: Buffer): ForeignHash | HashProblem {
  if (!inRange(iterations, 1, PBKDF2_ITERATIONS_MAX)) return problem(`PBKDF2 iterations ${iterations} are outside 1 to ${PBKDF2_ITERATIONS_MAX}`)
  if (!inRange(salt.length, SALT_BYTES.min, SALT_BYTES.max)) return problem(`a PBKDF2 salt of ${salt.length} bytes is outside ${SALT_BYTES.min} to ${SALT_BYTES.max}`)
  if (!inRange(hash.length, OUTPUT_BYTES.min, OUTPUT_BYTES.max * 2))
    return problem(`a PBKDF2 hash of ${hash.length} bytes is outside ${OUTPUT_BYTES.min} to ${OUTPUT_BYTES.max * 2}`)
  const blocks = Math.ceil(hash.length / DIGEST_BYTES[digest])
  if (iterations * blocks > PBKDF2_WORK_MAX) return problem(`PBKDF2 with ${iterations} iterations over ${blocks} blocks is more work than ${PBKDF2_WORK_MAX} rounds`)
  const id = `pbkdf2-${digest}`
  return {
    scheme: id as HashScheme,
    stored: `$${id}$i=${iterations}$${b64(salt)}$${b64(hash)}`,
    kind: `${id} i=${iterations} l=${hash.length}`,
    pattern: `^\\$${id}\\$i=${iterations}\\$[A-Za-z0-9+/]+\\$[A-Za-z0-9+/]{${base64Length(hash.length)}}$`,
  }
}

function readPbkdf2(text: string): ForeignHash | HashProblem {
  // `$pbkdf2-sha256$i=27500$salt$hash` (PHC, @phc/pbkdf2) or `$pbkdf2-sha256$27500$salt$hash` (passlib).
  const match = /^\$pbkdf2(?:-(sha1|sha256|sha512))?\$(?:i=)?(\d{1,8})\$([^$]+)\$([^$]+)$/.exec(text)
  if (!match) return problem('malformed PBKDF2 hash')
  const salt = decodeBase64(match[3]!)
  const hash = decodeBase64(match[4]!)
  if (!salt || !hash) return problem('malformed PBKDF2 hash: its salt or hash is not base64')
  return pbkdf2Hash((match[1] ?? 'sha1') as Digest, Number(match[2]), salt, hash)
}

function readScrypt(text: string): ForeignHash | HashProblem {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([^$]+)\$([^$]+)$/.exec(text)
  if (!match) return problem('malformed scrypt hash')
  const [logN, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const salt = decodeBase64(match[4]!)
  const hash = decodeBase64(match[5]!)
  if (!salt || !hash) return problem('malformed scrypt hash: its salt or hash is not base64')
  if (!inRange(logN, 1, SCRYPT.logNMax) || !inRange(r, 1, SCRYPT.rMax) || !inRange(p, 1, SCRYPT.pMax)) {
    return problem(`scrypt parameters ln=${logN}, r=${r}, p=${p} are outside ln 1 to ${SCRYPT.logNMax}, r 1 to ${SCRYPT.rMax}, p 1 to ${SCRYPT.pMax}`)
  }
  if (scryptMemory(logN, r) > MEMORY_MAX_BYTES) return problem(`scrypt with ln=${logN} and r=${r} needs more than ${MEMORY_MAX_BYTES / 1024 / 1024} MiB`)
  if (!inRange(salt.length, SALT_BYTES.min, SALT_BYTES.max) || !inRange(hash.length, OUTPUT_BYTES.min, OUTPUT_BYTES.max))
    return problem('scrypt salt or hash of an unusual length')
  const params = `ln=${logN},r=${r},p=${p}`
  return {
    scheme: 'scrypt',
    stored: `$scrypt$${params}$${b64(salt)}$${b64(hash)}`,
    kind: `scrypt ${params.replace(/,/g, ' ')} l=${hash.length}`,
    pattern: `^\\$scrypt\\$${regexEscape(params)}\\$[A-Za-z0-9+/]+\\$[A-Za-z0-9+/]{${base64Length(hash.length)}}$`,
  }
}

const scryptMemory = (logN: number, r: number) => 128 * r * 2 ** logN

function readArgon2(text: string): ForeignHash | HashProblem {
  const match = /^\$(argon2(?:id|i|d))\$v=(16|19)\$m=(\d{1,9}),t=(\d{1,4}),p=(\d{1,3})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(text)
  if (!match) return problem('malformed Argon2 hash (or one with a secret key or associated data)')
  const [scheme, version, memory, time, parallelism] = [match[1] as HashScheme, match[2]!, Number(match[3]), Number(match[4]), Number(match[5])]
  if (memory * 1024 > MEMORY_MAX_BYTES || !inRange(time, 1, ARGON2.timeMax) || !inRange(parallelism, 1, ARGON2.parallelismMax) || memory < 8 * parallelism) {
    return problem(
      `Argon2 parameters m=${memory}, t=${time}, p=${parallelism} are outside m up to ${MEMORY_MAX_BYTES / 1024} KiB, t 1 to ${ARGON2.timeMax}, p 1 to ${ARGON2.parallelismMax}`,
    )
  }
  const salt = decodeBase64(match[6]!)
  const hash = decodeBase64(match[7]!)
  if (!salt || !hash || !inRange(salt.length, SALT_BYTES.min, SALT_BYTES.max) || !inRange(hash.length, 4, OUTPUT_BYTES.max))
    return problem('Argon2 salt or hash of an unusual length')
  const params = `v=${version}$m=${memory},t=${time},p=${parallelism}`
  return {
    scheme,
    stored: text,
    kind: `${scheme} v=${version} m=${memory} t=${time} p=${parallelism}`,
    pattern: `^\\$${scheme}\\$${regexEscape(params)}\\$`,
  }
}

const pbkdf2 = promisify(crypto.pbkdf2)
const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, length: number, options: crypto.ScryptOptions) => Promise<Buffer>

/** Whether the password is the one the hash was made of, checked with the hash's own algorithm and parameters. */
export async function matchesForeignHash(hash: ForeignHash, password: string): Promise<boolean> {
  if (hash.scheme === 'bcrypt') return bcryptVerify(password, hash.stored)
  if (hash.scheme.startsWith('argon2')) {
    try {
      return await argon2Verify(hash.stored, password)
    } catch {
      return false
    }
  }
  const [, id, params, saltText, hashText] = hash.stored.split('$')
  const salt = Buffer.from(saltText!, 'base64')
  const expected = Buffer.from(hashText!, 'base64')
  let derived: Buffer
  if (hash.scheme === 'scrypt') {
    const [logN, r, p] = /ln=(\d+),r=(\d+),p=(\d+)/.exec(params!)!.slice(1).map(Number) as [number, number, number]
    derived = await scrypt(password, salt, expected.length, { N: 2 ** logN, r, p, maxmem: scryptMemory(logN, r) + 1024 * 1024 })
  } else {
    derived = await pbkdf2(password, salt, Number(params!.slice(2)), expected.length, id!.slice('pbkdf2-'.length))
  }
  return crypto.timingSafeEqual(derived, expected)
}

/**
 * A hash of the kind, made from a random password nobody kept: checking a password against it
 * costs what checking one of that kind costs. Made with the kind's own algorithm, so making it
 * costs one check too.
 */
export async function foreignHashOfKind(kind: string): Promise<ForeignHash> {
  const password = crypto.randomBytes(18).toString('base64url')
  const salt = crypto.randomBytes(16)
  const parts = Object.fromEntries(
    kind
      .split(' ')
      .slice(1)
      .map((part) => part.split('=') as [string, string]),
  )
  const scheme = kind.split(' ')[0]!
  let made: ForeignHash | HashProblem
  if (scheme === 'bcrypt') {
    made = readForeignHash(await bcryptHash(password, Number(parts.cost)))
  } else if (scheme.startsWith('pbkdf2-')) {
    const digest = scheme.slice('pbkdf2-'.length) as Digest
    const length = Number(parts.l)
    made = pbkdf2Hash(digest, Number(parts.i), salt, await pbkdf2(password, salt, Number(parts.i), length, digest))
  } else if (scheme === 'scrypt') {
    const [logN, r, p, length] = [Number(parts.ln), Number(parts.r), Number(parts.p), Number(parts.l)]
    const hash = await scrypt(password, salt, length, { N: 2 ** logN, r, p, maxmem: scryptMemory(logN, r) + 1024 * 1024 })
    made = readForeignHash(`$scrypt$ln=${logN},r=${r},p=${p}$${b64(salt)}$${b64(hash)}`)
  } else if (scheme.startsWith('argon2')) {
    // The binding's enums by value: Argon2d 0, Argon2i 1, Argon2id 2; version 0x10 is 0, 0x13 is 1.
    const algorithm = scheme === 'argon2id' ? 2 : scheme === 'argon2i' ? 1 : 0
    const version = parts.v === '16' ? 0 : 1
    made = readForeignHash(await argon2Hash(password, { algorithm, version, memoryCost: Number(parts.m), timeCost: Number(parts.t), parallelism: Number(parts.p), salt }))
  } else {
    throw new Error(`Unknown kind of password hash: ${kind}`)
  }
  if (isHashProblem(made) || made.kind !== kind) throw new Error(`Could not make a hash of kind ${kind}`)
  return made
}
