import type { AdminUpdateUserInput } from '~shared/schemas/admin'
import { adminRuleMessages } from '~shared/schemas/admin'
import type { User } from '~shared/schemas/user'

/**
 * The admin's edit and delete rules as the reason an action is unavailable, or null
 * when it is allowed. The server enforces the same rules; these only explain them up front.
 */
/** Role options in the product's order, CLIENT first. */
export const ROLE_OPTIONS = ['CLIENT', 'DEVELOPER', 'MODERATOR', 'ADMIN'] as const satisfies readonly User['role'][]

type Actor = Pick<User, 'id' | 'role'>
type Target = Pick<User, 'id' | 'role' | 'status'>

export function editBlockedReason(actor: Actor, target: Target): string | null {
  if (actor.id === target.id && actor.role === 'ADMIN') return adminRuleMessages.noSelfEdit
  if (target.role === 'ADMIN' && actor.role !== 'ADMIN') return adminRuleMessages.noEditOtherAdmins
  return null
}

export function roleChangeBlockedReason(actor: Actor, target: Target): string | null {
  if (actor.id === target.id) return adminRuleMessages.noOwnRole
  if (target.role === 'ADMIN' && actor.role !== 'ADMIN') return adminRuleMessages.adminRoleLocked
  return null
}

export function deleteBlockedReason(actor: Actor, target: Target): string | null {
  if (actor.id === target.id) return adminRuleMessages.noSelfDelete
  if (target.role === 'ADMIN') return adminRuleMessages.noAdminDelete
  if (target.status !== 'INACTIVE') return adminRuleMessages.inactiveBeforeDelete
  return null
}

export type EditedUser = Required<Pick<User, 'name' | 'email' | 'role' | 'status'>> & { phone?: string | null }

/** Only what changed; an empty object means nothing to send. */
export function changedFields(original: User, edited: Partial<EditedUser>): AdminUpdateUserInput {
  const changes: AdminUpdateUserInput = {}
  if (edited.name !== undefined && edited.name !== original.name) changes.name = edited.name
  if (edited.email !== undefined && edited.email !== original.email) changes.email = edited.email
  if (edited.phone !== undefined && (edited.phone ?? null) !== (original.phone ?? null)) changes.phone = edited.phone
  if (edited.role !== undefined && edited.role !== original.role) changes.role = edited.role
  if (edited.status !== undefined && edited.status !== original.status) changes.status = edited.status
  return changes
}
