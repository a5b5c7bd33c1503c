import { z } from 'zod'
import { currentPasswordField } from './fields'
import { tokensSchema, userSchema } from './user'

/**
 * Two-factor sign-in: an authenticator app (TOTP) and recovery codes. Bodies are strict; a code
 * of the wrong length or with letters is a 400 before anything is looked up.
 */

export const twoFactorMessages = {
  codeFormat: 'Code must be 6 digits',
  recoveryCodeFormat: 'Recovery code must be 16 letters and digits',
  oneOfCodes: 'Enter a code or a recovery code',
  invalidCode: 'Invalid code',
  mfaTokenRequired: 'Sign-in step is missing',
} as const

/** The way a recovery code is compared: lower case, no spaces or dashes, o read as 0 and i or l as 1. */
export const normalizeRecoveryCode = (typed: string): string =>
  typed
    .toLowerCase()
    .replace(/[\s-]+/g, '')
    .replace(/o/g, '0')
    .replace(/[il]/g, '1')

/** Crockford's base32, 16 characters once normalised. */
const RECOVERY_CODE_PATTERN = /^[0-9a-hjkmnp-tv-z]{16}$/

export const totpCodeField = z.string({ error: twoFactorMessages.codeFormat }).regex(/^\d{6}$/, { error: twoFactorMessages.codeFormat })

export const recoveryCodeField = z
  .string({ error: twoFactorMessages.recoveryCodeFormat })
  .max(64, { error: twoFactorMessages.recoveryCodeFormat, abort: true })
  .transform(normalizeRecoveryCode)
  .pipe(z.string().regex(RECOVERY_CODE_PATTERN, { error: twoFactorMessages.recoveryCodeFormat }))

export const passwordConfirmationSchema = z.strictObject({ password: currentPasswordField })
export type PasswordConfirmationInput = z.input<typeof passwordConfirmationSchema>

export const enableTotpSchema = z.strictObject({ code: totpCodeField })
export type EnableTotpInput = z.input<typeof enableTotpSchema>

/** The second step of a sign-in: the mfaToken and exactly one of a code or a recovery code. */
export const secondStepSchema = z
  .strictObject({
    mfaToken: z
      .string({ error: twoFactorMessages.mfaTokenRequired })
      .min(1, { error: twoFactorMessages.mfaTokenRequired })
      .max(200, { error: twoFactorMessages.invalidCode }),
    code: totpCodeField.optional(),
    recoveryCode: recoveryCodeField.optional(),
  })
  .superRefine((value, ctx) => {
    if ((value.code === undefined) === (value.recoveryCode === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['code'], message: twoFactorMessages.oneOfCodes })
    }
  })
export type SecondStepInput = z.input<typeof secondStepSchema>

/** The ways a second step can be taken; `passkey` when the account has one. */
export const SECOND_FACTOR_METHODS = ['totp', 'recovery', 'passkey'] as const
export type SecondFactorMethod = (typeof SECOND_FACTOR_METHODS)[number]

export const twoFactorStatusSchema = z.object({
  totp: z.boolean(),
  recoveryCodesLeft: z.number().int(),
  passkeys: z.number().int(),
})
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>

export const totpSetupSchema = z.object({ secret: z.string(), otpauthUrl: z.string(), qrCode: z.string() })
export type TotpSetup = z.infer<typeof totpSetupSchema>

export const recoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()) })
export type RecoveryCodes = z.infer<typeof recoveryCodesSchema>

/** The password step's answer for an account with two-factor on: no tokens yet. */
export const mfaRequiredSchema = z.object({
  mfaRequired: z.literal(true),
  mfaToken: z.string(),
  methods: z.array(z.enum(SECOND_FACTOR_METHODS)),
})
export type MfaRequired = z.infer<typeof mfaRequiredSchema>

/** What `POST /auth/login` answers: the tokens, or the call for a second step. */
export const loginResultSchema = z.union([tokensSchema.extend({ user: userSchema }), mfaRequiredSchema])
export type LoginResult = z.infer<typeof loginResultSchema>

/** The sign-in page's recovery-code form (the code form is `enableTotpSchema`'s shape). */
export const recoveryCodeFormSchema = z.strictObject({ recoveryCode: recoveryCodeField })
