import { z } from 'zod'
import { ROLES, STATUSES } from '../constants'
import { emailField, nameField, phoneField } from './fields'

/** An admin's edit of a user: only the fields that changed are sent. */
export const adminUpdateUserSchema = z
  .strictObject({
    name: nameField.optional(),
    email: emailField.optional(),
    phone: phoneField,
    role: z.enum(ROLES, { error: 'Unknown role' }).optional(),
    status: z.enum(STATUSES, { error: 'Unknown status' }).optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), { error: 'Nothing to update' })
export type AdminUpdateUserInput = z.input<typeof adminUpdateUserSchema>

/** An admin's invitation of a new person: they choose their password through the e-mailed link. */
export const inviteUserSchema = z.strictObject({
  name: nameField,
  email: emailField,
  role: z.enum(ROLES, { error: 'Unknown role' }),
  phone: phoneField,
})
export type InviteUserInput = z.input<typeof inviteUserSchema>

/** The admin's edit and delete rules, as the messages both the dialog and the server use. */
export const adminRuleMessages = {
  noSelfEdit: 'Admins cannot edit their own account to prevent accidental privilege loss',
  noEditOtherAdmins: 'You cannot edit other admin users',
  noOwnRole: 'You cannot modify your own role',
  adminRoleLocked: 'Admin roles cannot be modified',
  noSelfDelete: 'You cannot delete your own account',
  noAdminDelete: 'Admin users cannot be deleted',
  inactiveBeforeDelete: 'User must be inactive before deletion',
  lastAdmin: 'At least one active administrator must remain',
  emailTaken: 'This email address is already used by another account',
  invitationAccepted: 'This user has already joined: there is no invitation to send',
  invitationInactive: 'Only an active account can be invited',
} as const
