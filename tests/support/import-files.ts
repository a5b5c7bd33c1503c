import crypto from 'node:crypto'
import { hashRawSync } from '@node-rs/argon2'
import bcryptjs from 'bcryptjs'

/**
 * Files as the systems that accounts move in from write them, for the tests of `users:import`:
 *
 * - the seed application (Prisma on MongoDB, passwords by `bcryptjs`), its `users` and
 *   `activity_logs` collections as `mongoexport` writes them: one document a line, Extended JSON v2
 *   relaxed (`{"$oid":…}`, `{"$date":"…"}`), fields in the order the application creates them;
 * - Keycloak's realm export (`kc.sh export`), pretty-printed as Jackson does (`"key" : value`),
 *   password credentials encoded as Keycloak's PBKDF2 and Argon2 providers encode them: the
 *   password's UTF-8 bytes, a 16-byte salt, base64 with padding, `credentialData` and
 *   `secretData` as JSON texts;
 * - CSV with a header.
 */

let objectIds = 0
/** A fresh ObjectId as MongoDB makes them: 4 bytes of time, 5 of process, 3 of counter. */
export function objectId(): string {
  const time = Math.floor(Date.UTC(2025, 0, 1) / 1000 + objectIds)
    .toString(16)
    .padStart(8, '0')
  return `${time}${crypto.randomBytes(5).toString('hex')}${(++objectIds).toString(16).padStart(6, '0')}`
}

const date = (iso: string) => ({ $date: iso })

export interface SeedUser {
  id?: string
  name: string
  email: string
  password: string
  phone?: string | null
  role?: string
  status?: string
  emailVerified?: boolean
  createdAt?: string
  /** bcryptjs salt rounds: the seed application uses 10. */
  cost?: number
}

/** One line of `mongoexport --collection users`, the password hashed as the seed application hashes it. */
export function seedUserLine(user: SeedUser): { id: string; line: string } {
  const id = user.id ?? objectId()
  const created = user.createdAt ?? '2025-01-15T09:30:00.000Z'
  const document = {
    _id: { $oid: id },
    name: user.name,
    email: user.email,
    password: bcryptjs.hashSync(user.password, user.cost ?? 10),
    phone: user.phone ?? null,
    role: user.role ?? 'CLIENT',
    status: user.status ?? 'ACTIVE',
    emailVerified: user.emailVerified ?? true,
    emailVerificationToken: null,
    passwordResetToken: null,
    refreshToken: null,
    profilePicture: null,
    createdAt: date(created),
    updatedAt: date(created),
  }
  return { id, line: JSON.stringify(document) }
}

/** One line of `mongoexport --collection activity_logs`, as the seed application writes its entries. */
export function seedActivityLine(entry: { userId: string; activity: string; email?: string; ip?: string; userAgent?: string; at: string }): string {
  return JSON.stringify({
    _id: { $oid: objectId() },
    userId: { $oid: entry.userId },
    activity: entry.activity,
    details: JSON.stringify({ email: entry.email ?? 'someone@example.com' }),
    ipAddress: entry.ip ?? '::ffff:127.0.0.1',
    userAgent: entry.userAgent ?? 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0',
    createdAt: date(entry.at),
  })
}

export type KeycloakAlgorithm = 'pbkdf2-sha256' | 'pbkdf2-sha512' | 'pbkdf2' | 'argon2'

/**
 * A password credential as Keycloak stores and exports it. PBKDF2: `PBKDF2WithHmacSHA…` over the
 * password's UTF-8 bytes (Java's PBEKeySpec), 16 random bytes of salt, a 512-bit key unless said
 * (Keycloak 24 and later make 256-bit SHA-256 keys); Argon2: Bouncy Castle's Argon2id over the UTF-8
 * bytes, Keycloak's defaults (m=7168 KiB, t=5, p=1, 32 bytes).
 */
export function keycloakCredential(password: string, algorithm: KeycloakAlgorithm, options: { iterations?: number; keyBits?: number } = {}) {
  const salt = crypto.randomBytes(16)
  let value: Buffer
  let credentialData: Record<string, unknown>
  if (algorithm === 'argon2') {
    const iterations = options.iterations ?? 5
    value = hashRawSync(password, { algorithm: 2, version: 1, memoryCost: 7168, timeCost: iterations, parallelism: 1, outputLen: 32, salt })
    credentialData = {
      hashIterations: iterations,
      algorithm,
      additionalParameters: { hashLength: ['32'], memory: ['7168'], type: ['id'], version: ['1.3'], parallelism: ['1'] },
    }
  } else {
    const digest = algorithm === 'pbkdf2' ? 'sha1' : algorithm.slice('pbkdf2-'.length)
    const iterations = options.iterations ?? (algorithm === 'pbkdf2-sha512' ? 210_000 : 27_500)
    value = crypto.pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, (options.keyBits ?? 512) / 8, digest)
    credentialData = { hashIterations: iterations, algorithm, additionalParameters: {} }
  }
  return {
    id: crypto.randomUUID(),
    type: 'password',
    userLabel: 'My password',
    createdDate: Date.UTC(2025, 2, 1),
    secretData: JSON.stringify({ value: value.toString('base64'), salt: salt.toString('base64'), additionalParameters: {} }),
    credentialData: JSON.stringify(credentialData),
  }
}

export interface KeycloakUser {
  username: string
  email?: string
  firstName?: string
  lastName?: string
  enabled?: boolean
  emailVerified?: boolean
  realmRoles?: string[]
  credentials?: object[]
  attributes?: Record<string, string[]>
}

/** A realm export with these users, pretty-printed as `kc.sh export` writes it. */
export function keycloakRealm(users: KeycloakUser[]): string {
  const realm = {
    id: crypto.randomUUID(),
    realm: 'company',
    enabled: true,
    roles: { realm: [{ name: 'admin' }, { name: 'developer' }, { name: 'moderator' }, { name: 'default-roles-company' }] },
    users: users.map((user) => ({
      id: crypto.randomUUID(),
      createdTimestamp: Date.UTC(2024, 5, 1),
      enabled: true,
      totp: false,
      emailVerified: true,
      disableableCredentialTypes: [],
      requiredActions: [],
      notBefore: 0,
      groups: [],
      ...user,
      credentials: user.credentials ?? [],
      realmRoles: user.realmRoles ?? ['default-roles-company'],
    })),
    keycloakVersion: '26.1.0',
  }
  return JSON.stringify(realm, null, 2).replace(/^(\s*"(?:[^"\\]|\\.)*"): /gm, '$1 : ')
}

/** A CSV line, quoted where RFC 4180 wants it. */
export function csvLine(values: (string | null | undefined)[]): string {
  return values.map((value) => (value == null ? '' : /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value)).join(',')
}
