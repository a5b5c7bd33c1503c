import { pageLinks } from '~shared/paths'
import { adminRuleMessages } from '~shared/schemas/admin'
import { issueOneTimeToken } from '~server/auth/one-time-tokens'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { forbidden } from '~server/http/errors'
import { type AdminAction, lockTarget, stillAllowedActor } from '~server/use-cases/users/admin-rules'

/**
 * An admin e-mails a user a password reset link: the same link and token as "Forgot password"
 * (1 hour, single-use; older reset links die). Never on one's own account (the edit rules).
 * Nothing else changes until the user follows the link.
 */
export async function sendResetLink(ctx: AppContext, action: AdminAction): Promise<void> {
  if (action.actorId === action.targetId) throw forbidden(adminRuleMessages.noSelfEdit, 'SELF_EDIT')
  const links = pageLinks(ctx.config.appUrl)
  await commitChange(ctx, async (c) => {
    const actor = await stillAllowedActor(c.trx, action)
    const target = await lockTarget(c.trx, action.targetId)
    const token = await issueOneTimeToken(c.trx, target.id, 'reset-password', c.now)
    await c.record({
      userId: target.id,
      ...actor.entry,
      kind: 'reset',
      activity: `Sent password reset link to ${target.name} (${target.email})`,
      ip: action.ip,
    })
    await c.mail({ template: 'reset-password', lang: action.lang, to: target.email, name: target.name, link: links.resetPassword(token) })
  })
}
