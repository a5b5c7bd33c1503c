import { z } from 'zod'
import { PICTURE_MAX_BYTES } from '../constants'
import { currentPasswordField, messages, nameField, newPasswordField, phoneField } from './fields'
import { passwordPolicyProblem } from '../password-policy'

/** Profile calls: name and phone, password change, picture. Strict bodies. */

export const updateProfileSchema = z.strictObject({
  name: nameField.optional(),
  phone: phoneField,
})
export type UpdateProfileInput = z.input<typeof updateProfileSchema>

export const changePasswordSchema = z
  .strictObject({
    currentPassword: currentPasswordField,
    newPassword: newPasswordField,
    confirmPassword: z.string({ error: messages.passwordsDontMatch }),
  })
  .superRefine((value, ctx) => {
    if (value.newPassword !== value.confirmPassword) {
      ctx.addIssue({ code: 'custom', path: ['confirmPassword'], message: messages.passwordsDontMatch })
    }
    const problem = passwordPolicyProblem(value.newPassword)
    if (problem) ctx.addIssue({ code: 'custom', path: ['newPassword'], message: problem })
  })
export type ChangePasswordInput = z.input<typeof changePasswordSchema>

export const pictureMessages = {
  size: 'Image size must be less than 5MB',
  type: 'Please select a valid image file',
  read: 'Failed to read image file',
} as const

/** Longest data URL accepted: 5 MB in base64 plus its `data:image/...;base64,` prefix. */
export const PICTURE_DATA_URL_MAX = Math.ceil(PICTURE_MAX_BYTES / 3) * 4 + 64

export const profilePictureSchema = z.strictObject({
  profilePicture: z.string({ error: pictureMessages.type }).min(1, { error: pictureMessages.type }),
})
export type ProfilePictureInput = z.input<typeof profilePictureSchema>
