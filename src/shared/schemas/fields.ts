import { z } from 'zod'
import { EMAIL_MAX, NAME_MAX, NAME_MIN, PASSWORD_MAX, PASSWORD_MIN, PHONE_MAX } from '../constants'
import { hasHiddenCharacters, isLookAlikeAddress, normalizeEmail } from '../email-address'
import { passwordPolicyProblem } from '../password-policy'

/**
 * Field schemas shared by the browser forms and the server, with the messages users see, written
 * once: the product's own validation texts, and ours for the rules it adds (length caps, the
 * password blocklist of `password-policy.ts`).
 */

export const messages = {
  email: 'Invalid email address',
  passwordRequired: 'Password is required',
  nameMin: 'Name must be at least 2 characters',
  nameMax: 'Name must be less than 50 characters',
  nameControl: 'Name must not contain control characters',
  passwordMin: 'Password must be at least 8 characters',
  passwordMax: 'Password must be at most 128 characters',
  passwordRule: 'Password must contain at least one uppercase letter, one lowercase letter, one number, and one special character',
  passwordsDontMatch: "Passwords don't match",
  currentPasswordRequired: 'Current password is required',
  phoneMax: `Phone number must be at most ${PHONE_MAX} characters`,
  phoneControl: 'Phone number must not contain control characters',
  phoneType: 'Phone number must be text',
  resendEmailRequired: 'Email address not found. Please register again.',
} as const

// A plain, linear pattern: one "@", no whitespace, quotes or control characters (C0, DEL and
// C1: a NUL is refused by the database, the others have no business in a mail header or a log),
// and a dotted domain (or "localhost", the first admin's). Checked only after the length cap, so
// hostile inputs never reach it at full size.
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
const EMAIL_PATTERN = new RegExp(`^[^\\s@"<>()[\\]\\\\,;:\\u0000-\\u001f\\u007f-\\u009f]+@(?:localhost|${LABEL}(?:\\.${LABEL})+)$`)

/**
 * An address as typed: capped, free of invisible, direction-changing and loose combining
 * characters, then put in its normal form (NFKC, lower case) and checked again in that form,
 * where mixed scripts and look-alikes of Latin are refused too (../email-address.ts, decision
 * 0303). What the schema gives the server is the normal form: the one compared and stored.
 */
// Only the length caps abort: any other problem with the address leaves the form's other checks
// (the passwords' match, the blocklist) to run and say what they find too.
export const emailField = z
  .string({ error: messages.email })
  .max(EMAIL_MAX, { error: messages.email, abort: true })
  .refine((value) => !hasHiddenCharacters(value), { error: messages.email })
  .transform(normalizeEmail)
  .pipe(
    z
      .string()
      // Compatibility forms can lengthen an address (one ligature, several letters): capped again.
      .max(EMAIL_MAX, { error: messages.email, abort: true })
      .regex(EMAIL_PATTERN, { error: messages.email })
      .refine((value) => !isLookAlikeAddress(value), { error: messages.email }),
  )

export const nameField = z
  .string({ error: messages.nameMin })
  .trim()
  .min(NAME_MIN, { error: messages.nameMin })
  .max(NAME_MAX, { error: messages.nameMax })
  .regex(/^[^\p{Cc}]*$/u, { error: messages.nameControl })

/**
 * Optional phone: empty means none. No format rule, so
 * extensions and local notations are kept as typed; only a length cap and no control characters.
 */
export const phoneField = z
  .string({ error: messages.phoneType })
  .trim()
  .max(PHONE_MAX, { error: messages.phoneMax, abort: true })
  .regex(/^[^\p{Cc}]*$/u, { error: messages.phoneControl })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional()

/** Length in characters (Unicode code points), as a person counts them: an emoji is one, not two. */
const characterCount = (value: string) => Array.from(value).length

/**
 * The composition rule of a new password: length, the four character kinds, never trimmed. The
 * cap on UTF-16 units comes first, so a huge input is refused before anything else looks at it.
 */
export const newPasswordField = z
  .string({ error: messages.passwordMin })
  .max(PASSWORD_MAX * 2, { error: messages.passwordMax, abort: true })
  .refine((value) => characterCount(value) <= PASSWORD_MAX, { error: messages.passwordMax, abort: true })
  .refine((value) => characterCount(value) >= PASSWORD_MIN, { error: messages.passwordMin })
  .refine((value) => /[a-z]/.test(value) && /[A-Z]/.test(value) && /\d/.test(value) && /[@$!%*?&]/.test(value), {
    error: messages.passwordRule,
  })

/** A password typed to sign in or to confirm identity: required, capped before any hashing. */
export const loginPasswordField = z
  .string({ error: messages.passwordRequired })
  .min(1, { error: messages.passwordRequired })
  .max(PASSWORD_MAX * 4, { error: messages.passwordMax })

export const currentPasswordField = z
  .string({ error: messages.currentPasswordRequired })
  .min(1, { error: messages.currentPasswordRequired })
  .max(PASSWORD_MAX * 4, { error: messages.passwordMax })

/**
 * Adds the cross-field checks of a new password to an object schema's refinement: confirmation
 * equals the password (reported on confirmPassword) and the blocklist, which needs the e-mail.
 */
export function checkNewPassword(ctx: z.RefinementCtx, fields: { password: string; confirmPassword: string; email?: string | null }, passwordKey = 'password'): void {
  if (fields.password !== fields.confirmPassword) {
    ctx.addIssue({ code: 'custom', path: ['confirmPassword'], message: messages.passwordsDontMatch })
  }
  const problem = passwordPolicyProblem(fields.password, fields.email ?? undefined)
  if (problem) ctx.addIssue({ code: 'custom', path: [passwordKey], message: problem })
}
