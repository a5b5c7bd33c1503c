import { z } from 'zod'
import { checkNewPassword, emailField, loginPasswordField, messages, nameField, newPasswordField, phoneField } from './fields'

/** Request bodies of the authentication calls, strict: unknown fields are refused. */

export const registerSchema = z
  .strictObject({
    name: nameField,
    email: emailField,
    phone: phoneField,
    password: newPasswordField,
    confirmPassword: z.string({ error: messages.passwordsDontMatch }),
  })
  .superRefine((value, ctx) => checkNewPassword(ctx, value))
export type RegisterInput = z.input<typeof registerSchema>

export const loginSchema = z.strictObject({
  email: emailField,
  password: loginPasswordField,
})
export type LoginInput = z.input<typeof loginSchema>

export const emailOnlySchema = z.strictObject({ email: emailField })
export type EmailOnlyInput = z.input<typeof emailOnlySchema>

/** Resend verification: its own message when the address is missing. */
export const resendVerificationSchema = z.strictObject({
  email: z.string({ error: messages.resendEmailRequired }).min(1, { error: messages.resendEmailRequired, abort: true }).pipe(emailField),
})

export const resetPasswordSchema = z
  .strictObject({
    password: newPasswordField,
    confirmPassword: z.string({ error: messages.passwordsDontMatch }),
  })
  .superRefine((value, ctx) => checkNewPassword(ctx, value))
export type ResetPasswordInput = z.input<typeof resetPasswordSchema>

/**
 * Any string is looked up (and, unknown, answered 401 like every other wrong token: an access
 * token sent here is a wrong token, not a malformed request); only absurd sizes are a 400.
 */
export const refreshTokenSchema = z.strictObject({
  refreshToken: z.string({ error: 'Refresh token is required' }).min(1, { error: 'Refresh token is required' }).max(4096, { error: 'Refresh token is too long' }),
})

/** Paths carrying an e-mailed token: any string, so a malformed token is answered as an invalid link. */
export const tokenParamsSchema = z.object({ token: z.string() })

/** Accepting an invitation: the person chooses their password (the same rules as a reset). */
export const acceptInvitationSchema = resetPasswordSchema
export type AcceptInvitationInput = z.input<typeof acceptInvitationSchema>
