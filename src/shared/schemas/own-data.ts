import { z } from 'zod'
import { ROLES, STATUSES } from '../constants'
import { currentPasswordField } from './fields'
import { authenticationResponseSchema } from './passkeys'
import { recoveryCodeField, totpCodeField, twoFactorMessages } from './two-factor'

/**
 * A person's own data (contract section 15): the document `GET /auth/export` downloads, and the
 * proofs `POST /auth/delete-account` asks for.
 *
 * The document's shape is written once, here: the server's tests hold every export to it, and
 * `docs/account-export.schema.json` is generated from it (`npx tsx scripts/account-export-schema.ts`),
 * so the documented shape and the real one cannot drift apart. Every object is strict: a field
 * that is not listed here (a hash, a token) fails the tests. Keys that may have no value are
 * present with `null`, never left out, so a program reading the file finds every key.
 */

const time = (what: string) => z.string().describe(`${what}: ISO 8601, UTC, with milliseconds`)
const optionalTime = (what: string) => z.string().nullable().describe(`${what}: ISO 8601, UTC, with milliseconds, or null`)

export const exportedUserSchema = z
  .strictObject({
    id: z.string().describe('The account’s id (opaque, stable)'),
    name: z.string(),
    email: z.string().describe('The address, in its normal form (lower case)'),
    phone: z.string().nullable(),
    role: z.enum(ROLES),
    status: z.enum(STATUSES),
    emailVerified: z.boolean(),
    profilePicture: z.string().nullable().describe('The picture’s address while the account exists (the picture itself is `picture`)'),
    createdAt: time('When the account was created'),
    updatedAt: time('When the profile last changed'),
    lastSignInAt: optionalTime('The last completed sign-in'),
    mfaEnabled: z.boolean().describe('Whether two-factor sign-in with an authenticator app is on'),
  })
  .describe('The profile, as an administrator sees it')

export const exportedSessionSchema = z
  .strictObject({
    id: z.string(),
    current: z.boolean().describe('The session that downloaded this file'),
    browser: z.string().nullable().describe('Read from the User-Agent ("Chrome 131"), or null'),
    os: z.string().nullable().describe('Read from the User-Agent ("macOS"), or null'),
    userAgent: z.string().nullable().describe('The User-Agent header the sign-in sent (at most 500 characters)'),
    ipAddress: z.string().nullable().describe('The address the sign-in came from'),
    signedInWith: z
      .array(z.string())
      .describe('How the sign-in was proved, as RFC 8176 names it: `pwd` a password, `otp` and `mfa` a code after it, `hwk`, `user` and `mfa` a passkey'),
    createdAt: time('The sign-in'),
    lastUsedAt: time('The last call or refresh (to the minute)'),
    expiresAt: time('When it ends unless used again or signed out'),
    endedAt: optionalTime('When it was ended (signed out, or ended by a change to the account)'),
    endedReason: z.string().nullable().describe('Why it was ended, in a few words, or null'),
  })
  .describe('A signed-in session: the live ones and those that ended in the last 90 days')

export const exportedActivitySchema = z
  .strictObject({
    id: z.string(),
    createdAt: time('When it happened'),
    activity: z.string().describe('What happened ("Logged in", "Changed password", …)'),
    details: z.string().nullable(),
    ipAddress: z.string().nullable(),
    actor: z
      .strictObject({ id: z.string().nullable().describe('null once that account was deleted'), name: z.string().describe('Their name at the time') })
      .nullable()
      .describe('Who did it, when it was someone else (an administrator); null when it was the account itself'),
    changes: z
      .array(z.strictObject({ field: z.string(), from: z.string().nullable(), to: z.string().nullable() }))
      .nullable()
      .describe('An administrator’s edit: which fields changed, from what to what (a phone number’s values are never written); null otherwise'),
  })
  .describe('An entry of the activity log about the account, newest first')

export const exportedIdentitySchema = z
  .strictObject({
    id: z.string(),
    providerId: z.string(),
    providerName: z.string(),
    kind: z.string().describe('oidc, google, microsoft, github or saml'),
    email: z.string().nullable().describe('The address the provider gave'),
    linkedAt: time('When it was linked'),
    lastUsedAt: optionalTime('Its last sign-in'),
  })
  .describe('A sign-in method of another identity provider linked to the account')

export const exportedPasskeySchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    createdAt: time('When it was added'),
    lastUsedAt: optionalTime('Its last sign-in'),
  })
  .describe('A passkey: its name and dates (never its key or credential id)')

export const exportedTwoFactorSchema = z
  .strictObject({
    totp: z.boolean().describe('Whether an authenticator app is asked for after the password'),
    enabledAt: optionalTime('When it was turned on'),
    recoveryCodesLeft: z.number().int().describe('How many unused recovery codes remain (the codes themselves are never kept readable)'),
  })
  .describe('Two-factor sign-in (the app’s secret and the recovery codes are never included)')

export const exportedConnectedAppSchema = z
  .strictObject({
    id: z.string().describe('The application’s client_id'),
    name: z.string(),
    scopes: z.array(z.string()).describe('What it may see: openid, profile, email, phone, roles, offline_access'),
    grantedAt: time('When it was allowed'),
    lastUsedAt: optionalTime('When it last received a token'),
  })
  .describe('An application allowed to sign the account in ("Sign in with Accounts")')

export const accountExportSchema = z
  .strictObject({
    exportedAt: time('When this file was made'),
    user: exportedUserSchema,
    picture: z.string().nullable().describe('The profile picture as a data URL (`data:image/webp;base64,…`), or null'),
    sessions: z.array(exportedSessionSchema).describe('Newest first'),
    activity: z.array(exportedActivitySchema).describe('Newest first'),
    identities: z.array(exportedIdentitySchema),
    passkeys: z.array(exportedPasskeySchema).describe('Oldest first'),
    twoFactor: exportedTwoFactorSchema,
    connectedApps: z.array(exportedConnectedAppSchema).describe('Most recently allowed first'),
  })
  .describe(
    'Everything Accounts keeps about one person, as `GET /api/auth/export` downloads it. No password hash, token, recovery code, two-factor secret, passkey key or credential id, upstream token or API key is ever part of it.',
  )
export type AccountExport = z.infer<typeof accountExportSchema>
export type ExportedUser = z.infer<typeof exportedUserSchema>
export type ExportedSession = z.infer<typeof exportedSessionSchema>
export type ExportedActivity = z.infer<typeof exportedActivitySchema>
export type ExportedIdentity = z.infer<typeof exportedIdentitySchema>
export type ExportedPasskey = z.infer<typeof exportedPasskeySchema>
export type ExportedTwoFactor = z.infer<typeof exportedTwoFactorSchema>
export type ExportedConnectedApp = z.infer<typeof exportedConnectedAppSchema>

/** The JSON Schema of the document, as `docs/account-export.schema.json` holds it. */
export function accountExportJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(accountExportSchema, { target: 'draft-2020-12', metadata: z.globalRegistry, reused: 'inline' }),
    title: 'Accounts: a person’s own data',
  }
}

export const deleteAccountMessages = {
  oneProof: 'Enter your password, or confirm with a passkey',
  /** `freshSignIn` from an account that has a password: the password is its proof. */
  hasPassword: 'This account has a password: confirm with it',
  /** `freshSignIn` more than five minutes after the session's sign-in. */
  signInAgain: 'Sign in again, then delete your account within 5 minutes',
  oneCode: 'Enter a code or a recovery code, not both',
  invalidCode: twoFactorMessages.invalidCode,
} as const

/**
 * `POST /auth/delete-account`: the password, or a passkey's assertion (`passkeyResponse`, which
 * counts as two factors, as at sign-in), or, for an account without a password (made by an
 * identity provider or a directory), `freshSignIn`: the session itself signed in within the last 5
 * minutes; and when two-factor is on and the proof is not a passkey, the authenticator app's
 * `code` or a `recoveryCode`.
 */
export const deleteAccountSchema = z
  .strictObject({
    password: currentPasswordField.optional(),
    passkeyResponse: authenticationResponseSchema.optional(),
    freshSignIn: z.literal(true).optional(),
    code: totpCodeField.optional(),
    recoveryCode: recoveryCodeField.optional(),
  })
  .superRefine((value, ctx) => {
    if ([value.password, value.passkeyResponse, value.freshSignIn].filter((proof) => proof !== undefined).length !== 1) {
      ctx.addIssue({ code: 'custom', path: ['password'], message: deleteAccountMessages.oneProof })
    }
    if (value.code !== undefined && value.recoveryCode !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['code'], message: deleteAccountMessages.oneCode })
    }
  })
export type DeleteAccountInput = z.input<typeof deleteAccountSchema>

/**
 * The web app's form: the password (for an account that has one; without one, a fresh sign-in is
 * the proof), and the second step the account asks for (`none` when two-factor is off).
 */
export function deleteAccountFormSchema(secondStep: 'none' | 'totp' | 'recovery', withPassword = true) {
  return z.object({
    password: withPassword ? currentPasswordField : z.string().optional(),
    code: secondStep === 'totp' ? totpCodeField : z.string().optional(),
    recoveryCode: secondStep === 'recovery' ? recoveryCodeField : z.string().optional(),
  })
}
