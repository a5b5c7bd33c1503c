import { pageLinks } from '~shared/paths'
import { adminRuleMessages } from '~shared/schemas/admin'
import { revokeUserSessions } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { forbidden } from '~server/http/errors'
import { type AdminAction, lockTarget, stillAllowedActor } from './admin-rules'

/**
 * An admin signs a user out on every device at once: every live session ends, so each access
 * token is refused on its next request (the session check reads the session) and each refresh
 * token is dead. The user is told by e-mail. Never on one's own account (the edit rules).
 */
export async function signOutUser(ctx: AppContext, action: AdminAction): Promise<void> {
  if (action.actorId === action.targetId) throw forbidden(adminRuleMessages.noSelfEdit, 'SELF_EDIT')
  const links = pageLinks(ctx.config.appUrl)
  await commitChange(ctx, async (c) => {
    const actor = await stillAllowedActor(c.trx, action)
    const target = await lockTarget(c.trx, action.targetId)
    await revokeUserSessions(c.trx, target.id, 'signed out by an administrator', c.now)
    await c.record({
      userId: target.id,
      ...actor.entry,
      kind: 'logged out',
      activity: `Logged out ${target.name} (${target.email}) everywhere`,
      ip: action.ip,
    })
    await c.emitUser('user.signed_out_everywhere', target.id, { by: 'admin' })
    await c.mail({ template: 'signed-out-by-admin', lang: action.lang, to: target.email, name: target.name, resetLink: links.forgotPassword() })
  })
}
