import { adminRuleMessages } from '~shared/schemas/admin'
import type { User } from '~shared/schemas/user'

/**
 * The admin's actions on a user's security, offered in the row menu and the edit dialog, each
 * behind a confirmation. Like an edit, none is allowed on one's own account: it stays listed,
 * unavailable, with the reason. "Resend invitation" is offered only to someone who has not
 * joined yet (an unverified address).
 * "Reset two-factor and passkeys" turns the user's two-factor off and removes their passkeys (a
 * lost phone). Each action's call is in `api/user-actions.ts`, its texts under `userActions` in
 * the locales.
 */
export const SECURITY_ACTIONS = ['resend-invitation', 'password-reset', 'sign-out', 'reset-mfa'] as const

/** The actions that take something away from the user (their confirmation button says so). */
export const DESTRUCTIVE_ACTIONS: readonly UserSecurityAction[] = ['sign-out', 'reset-mfa']
export type UserSecurityAction = (typeof SECURITY_ACTIONS)[number]

export interface OfferedAction {
  action: UserSecurityAction
  /** Why it is unavailable, or null. */
  reason: string | null
}

export function securityActionsFor(actor: Pick<User, 'id'>, target: Pick<User, 'id' | 'emailVerified'>): OfferedAction[] {
  const reason = actor.id === target.id ? adminRuleMessages.noSelfEdit : null
  return SECURITY_ACTIONS.filter((action) => action !== 'resend-invitation' || !target.emailVerified).map((action) => ({ action, reason }))
}
