import { Readable } from 'node:stream'
import sjson from 'secure-json-parse'
import chain from 'stream-chain'
import { parser } from 'stream-json'
import { pick } from 'stream-json/filters/pick.js'
import { streamArray } from 'stream-json/streamers/stream-array.js'
import { ROLES, type Role } from '~shared/constants'
import { type ForeignHash, type HashProblem, pbkdf2Hash, readForeignHash } from '~server/auth/password-hashes'
import type { ImportedAccount, Parsed } from '~server/use-cases/import-users/records'
import { checkAccount } from './account'
import { ImportFileError } from './reading'

/**
 * A Keycloak realm export (`kc.sh export --realm <realm> --file realm.json`, or one of the
 * `<realm>-users-N.json` files of `--users different_files`): its `users` array, streamed one user
 * at a time (the file is never read whole), each user reported by its position in the array.
 *
 * A user's password is its credential of type `password`: `credentialData` (a JSON text naming the
 * algorithm, `pbkdf2-sha256`, `pbkdf2-sha512`, `pbkdf2` or `argon2`, with its iterations and
 * parameters) and `secretData` (a JSON text with the base64 `value` and `salt`). Realm roles named
 * like the product's roles (in any case) give the role, the most privileged winning; `enabled:
 * false` is INACTIVE; a user without an e-mail is skipped.
 */

type KeycloakUser = Record<string, unknown>

export async function* readKeycloakUsers(chunks: AsyncIterable<Buffer>): AsyncGenerator<Parsed<ImportedAccount>> {
  const users = chain([Readable.from(chunks), parser(), pick({ filter: 'users', once: true }), streamArray()])
  let position = 0
  try {
    for await (const item of users as AsyncIterable<{ key: number; value: unknown }>) {
      position = item.key + 1
      yield readUser(position, item.value)
    }
  } catch (error) {
    if (error instanceof ImportFileError) throw error
    throw new ImportFileError(`the file is not a whole JSON document${position ? ` after user ${position}` : ''} (${(error as Error).message}).`)
  }
  if (position === 0)
    throw new ImportFileError(
      'the file has no users: give a realm export made with its users (kc.sh export --realm <realm> --file <file>), or one of its <realm>-users-N.json files.',
    )
}

function readUser(position: number, value: unknown): Parsed<ImportedAccount> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { position, refused: 'not a user object' }
  const user = value as KeycloakUser
  if (typeof user.email !== 'string' || user.email.trim() === '') return { position, skipped: 'no e-mail address' }
  const sourceId = typeof user.id === 'string' && user.id !== '' ? user.id : typeof user.username === 'string' ? `username:${user.username}` : null
  if (!sourceId) return { position, refused: 'no id and no username' }
  const name = [user.firstName, user.lastName].filter((part) => typeof part === 'string' && part.trim() !== '').join(' ') || user.username
  return checkAccount(position, {
    sourceId,
    email: user.email,
    name,
    phone: firstAttribute(user.attributes, ['phoneNumber', 'phone_number', 'phone', 'mobile']),
    role: roleOf(user.realmRoles),
    status: user.enabled === false ? 'INACTIVE' : 'ACTIVE',
    emailVerified: user.emailVerified === true,
    passwordHash: passwordOf(user.credentials),
    createdAt: typeof user.createdTimestamp === 'number' ? user.createdTimestamp : undefined,
  })
}

function firstAttribute(attributes: unknown, names: string[]): unknown {
  if (typeof attributes !== 'object' || attributes === null) return undefined
  for (const name of names) {
    const values = (attributes as Record<string, unknown>)[name]
    if (Array.isArray(values) && values.length > 0) return values[0]
    if (typeof values === 'string') return values
  }
  return undefined
}

/** The most privileged of the product's roles among the realm roles (their names compared without regard to case); CLIENT else. */
function roleOf(realmRoles: unknown): Role {
  const names = new Set(Array.isArray(realmRoles) ? realmRoles.filter((r): r is string => typeof r === 'string').map((r) => r.toUpperCase()) : [])
  return ROLES.find((role) => names.has(role)) ?? 'CLIENT'
}

function parseJsonText(value: unknown): Record<string, unknown> | null {
  if (typeof value === 'object' && value !== null) return value as Record<string, unknown>
  if (typeof value !== 'string') return null
  try {
    const parsed: unknown = sjson.parse(value, undefined, { protoAction: 'error', constructorAction: 'error' })
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** `additionalParameters` values are lists of text: `{"memory":["7168"]}`. */
function parameter(parameters: unknown, name: string): string | undefined {
  const values = typeof parameters === 'object' && parameters !== null ? (parameters as Record<string, unknown>)[name] : undefined
  const first = Array.isArray(values) ? values[0] : values
  return typeof first === 'string' || typeof first === 'number' ? String(first) : undefined
}

const DIGESTS: Record<string, 'sha1' | 'sha256' | 'sha512'> = { pbkdf2: 'sha1', 'pbkdf2-sha256': 'sha256', 'pbkdf2-sha512': 'sha512' }
const ARGON2_TYPES: Record<string, string> = { id: 'argon2id', i: 'argon2i', d: 'argon2d' }

/** The user's password credential as a hash the product checks, a problem, or null (no password). */
function passwordOf(credentials: unknown): ForeignHash | HashProblem | null {
  if (!Array.isArray(credentials)) return null
  const credential = credentials.find((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'password')
  if (!credential) return null
  // Keycloak 11 and later write credentialData and secretData; older exports kept the fields on the credential.
  const data = parseJsonText(credential.credentialData) ?? credential
  const secret = parseJsonText(credential.secretData) ?? { value: credential.hashedSaltedValue, salt: credential.salt }
  const algorithm = typeof data.algorithm === 'string' ? data.algorithm : 'pbkdf2-sha256'
  const iterations = Number(data.hashIterations)
  const salt = typeof secret.salt === 'string' ? Buffer.from(secret.salt, 'base64') : null
  const value = typeof secret.value === 'string' ? Buffer.from(secret.value, 'base64') : null
  if (!salt || !value || salt.length === 0 || value.length === 0) return { problem: 'a password credential without its value or salt' }
  const digest = DIGESTS[algorithm]
  if (digest) return pbkdf2Hash(digest, iterations, salt, value)
  if (algorithm === 'argon2') {
    const extra = data.additionalParameters
    const scheme = ARGON2_TYPES[parameter(extra, 'type') ?? 'id']
    const version = (parameter(extra, 'version') ?? '1.3') === '1.0' ? 16 : 19
    const [memory, parallelism] = [parameter(extra, 'memory') ?? '7168', parameter(extra, 'parallelism') ?? '1']
    if (!scheme) return { problem: `unknown Argon2 type ${JSON.stringify(parameter(extra, 'type'))}` }
    const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '')
    return readForeignHash(`$${scheme}$v=${version}$m=${memory},t=${iterations},p=${parallelism}$${b64(salt)}$${b64(value)}`)
  }
  return { problem: `unknown password hash algorithm ${JSON.stringify(algorithm.slice(0, 40))}` }
}
