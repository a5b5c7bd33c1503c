import { ROLES, STATUSES } from '~shared/constants'
import { hasHiddenCharacters, isLookAlikeAddress, normalizeEmail } from '~shared/email-address'
import { emailField, nameField, phoneField } from '~shared/schemas/fields'
import { type ForeignHash, type HashProblem, isHashProblem, readForeignHash } from '~server/auth/password-hashes'
import type { ImportedAccount, Parsed } from '~server/use-cases/import-users/records'

/**
 * The checks every format's records pass before anything is written (contract section 14): the
 * address by the rules registration follows (section 3: look-alikes refused, normal form), name and
 * phone by the profile's rules, role and status among the product's, the password hash among the
 * formats it can check, dates as dates. A record that fails one is refused with the reason.
 */
export interface RawAccount {
  sourceId: string
  email: unknown
  name?: unknown
  phone?: unknown
  role?: unknown
  status?: unknown
  emailVerified?: unknown
  /** A hash as text, one a format has read already, or nothing (no password). */
  passwordHash?: string | ForeignHash | HashProblem | null
  createdAt?: unknown
  updatedAt?: unknown
}

/** A value of the file as the report may show it: short, and with anything unprintable written as an escape. */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  const cut = [...text].slice(0, 80).join('') + ([...text].length > 80 ? '…' : '')
  return `"${cut.replace(/[^\x20-\x7e]|["\\]/gu, (c) => (c === '"' || c === '\\' ? `\\${c}` : `\\u{${c.codePointAt(0)!.toString(16)}}`))}"`
}

class Refusal extends Error {}
const refuse = (reason: string): never => {
  throw new Refusal(reason)
}

export function checkAccount(position: number, raw: RawAccount): Parsed<ImportedAccount> {
  try {
    const email = checkEmail(raw.email)
    return {
      position,
      value: {
        sourceId: raw.sourceId,
        email,
        name: checkName(raw.name, email),
        phone: checkPhone(raw.phone),
        role: checkChoice(raw.role, ROLES, 'CLIENT', 'role'),
        status: checkChoice(raw.status, STATUSES, 'ACTIVE', 'status'),
        emailVerified: checkBoolean(raw.emailVerified, 'emailVerified'),
        passwordHash: checkHash(raw.passwordHash),
        createdAt: checkDate(raw.createdAt, 'createdAt'),
        updatedAt: checkDate(raw.updatedAt, 'updatedAt'),
      },
    }
  } catch (error) {
    if (error instanceof Refusal) return { position, refused: error.message }
    throw error
  }
}

function checkEmail(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') return refuse('no e-mail address')
  const text = value.trim()
  const parsed = emailField.safeParse(text)
  if (parsed.success) return parsed.data
  if (hasHiddenCharacters(text)) return refuse(`the address ${shown(text)} holds invisible or direction-changing characters`)
  if (isLookAlikeAddress(normalizeEmail(text)))
    return refuse(`the address ${shown(text)} is a look-alike (letters of several scripts, or letters that pass for Latin ones)`)
  return refuse(`Invalid email address ${shown(text)}`)
}

function checkName(value: unknown, email: string): string {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    // No name: the address's local part stands in, as the person can change it in their profile.
    const local = email.slice(0, email.lastIndexOf('@'))
    return [...(local.length >= 2 ? local : email)].slice(0, 50).join('')
  }
  const parsed = nameField.safeParse(value)
  return parsed.success ? parsed.data : refuse(`name ${shown(value)}: ${parsed.error.issues[0]!.message}`)
}

function checkPhone(value: unknown): string | null {
  if (value === undefined || value === null) return null
  const parsed = phoneField.safeParse(value)
  return parsed.success ? (parsed.data ?? null) : refuse(`phone ${shown(value)}: ${parsed.error.issues[0]!.message}`)
}

function checkChoice<T extends string>(value: unknown, choices: readonly T[], fallback: T, field: string): T {
  if (value === undefined || value === null || value === '') return fallback
  const upper = typeof value === 'string' ? value.trim().toUpperCase() : ''
  return (choices as readonly string[]).includes(upper) ? (upper as T) : refuse(`unknown ${field} ${shown(value)} (one of ${choices.join(', ')})`)
}

function checkBoolean(value: unknown, field: string): boolean {
  if (value === undefined || value === null || value === '') return false
  if (typeof value === 'boolean') return value
  const text = typeof value === 'string' ? value.trim().toLowerCase() : ''
  if (['true', '1', 'yes'].includes(text)) return true
  if (['false', '0', 'no'].includes(text)) return false
  return refuse(`${field} ${shown(value)} is neither true nor false`)
}

function checkHash(value: RawAccount['passwordHash']): ForeignHash | null {
  if (value === undefined || value === null || value === '') return null
  const hash = typeof value === 'string' ? readForeignHash(value.trim()) : value
  return isHashProblem(hash) ? refuse(`password hash: ${hash.problem}`) : hash
}

/** The earliest and latest dates an account can have been made on. */
const DATE_RANGE = { min: Date.UTC(1970, 0, 1), max: Date.UTC(9999, 11, 31) }

function checkDate(value: unknown, field: string): Date | null {
  if (value === undefined || value === null || value === '') return null
  const date = value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : null
  if (!date || Number.isNaN(date.getTime()) || date.getTime() < DATE_RANGE.min || date.getTime() > DATE_RANGE.max) {
    return refuse(`${field} ${shown(value)} is not a date`)
  }
  return date
}
