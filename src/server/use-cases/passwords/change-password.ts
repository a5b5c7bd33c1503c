import type { Language } from '~shared/constants'
import { passwordPolicyProblem } from '~shared/password-policy'
import { pageLinks } from '~shared/paths'
import { retireOneTimeTokens } from '~server/auth/one-time-tokens'
import type { AuthState } from '~server/auth/session-check'
import { revokeUserSessions } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { findCredentialsByEmail } from '~server/data/users/users'
import { fieldErrors } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'

export interface ChangePasswordInput extends AuthState {
  currentPassword: string
  newPassword: string
  ip: string
  /** The language of the request, for the e-mail telling the owner. */
  lang: Language
}

/**
 * Changes the signed-in user's password, given the current one. Every other session ends; the
 * one that made the change stays signed in. Older reset links stop working, and the owner is
 * told by e-mail.
 */
export async function changePassword(ctx: AppContext, input: ChangePasswordInput): Promise<void> {
  const { user, sessionId, currentPassword, newPassword, ip, lang } = input
  const problem = passwordPolicyProblem(newPassword, user.email)
  if (problem) throw fieldErrors([{ field: 'newPassword', message: problem }])

  await ctx.limiter.consume(RULES.changePasswordByUser, user.id)
  const credentials = await findCredentialsByEmail(ctx.db, user.email)
  if (!credentials || !(await ctx.hasher.verify(credentials.password_hash, currentPassword))) {
    await commitChange(ctx, (c) => c.record({ userId: user.id, kind: 'other', activity: 'Failed password change', details: 'Wrong current password', ip }))
    throw fieldErrors([{ field: 'currentPassword', message: 'Current password is incorrect' }])
  }
  await ctx.limiter.reset(RULES.changePasswordByUser, user.id)

  const links = pageLinks(ctx.config.appUrl)
  const passwordHash = await ctx.hasher.hash(newPassword)
  await commitChange(ctx, async (c) => {
    await c.trx.updateTable('users').set({ password_hash: passwordHash, updated_at: c.now }).where('id', '=', user.id).execute()
    await revokeUserSessions(c.trx, user.id, 'password changed', c.now, sessionId)
    await retireOneTimeTokens(c.trx, user.id, 'reset-password', c.now)
    await c.record({ userId: user.id, kind: 'updated', activity: 'Changed password', ip })
    await c.emitUser('user.password_changed', user.id, { reset: false })
    await c.mail({ template: 'password-changed', lang, to: user.email, name: user.name, resetLink: links.forgotPassword() })
  })
}
