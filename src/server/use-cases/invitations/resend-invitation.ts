import { pageLinks } from '~shared/paths'
import { adminRuleMessages } from '~shared/schemas/admin'
import { issueOneTimeToken } from '~server/auth/one-time-tokens'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { conflict, forbidden } from '~server/http/errors'
import { type AdminAction, lockTarget, stillAllowedActor } from '~server/use-cases/users/admin-rules'

/**
 * A new invitation for someone who has not joined yet (their address is still unverified): a new
 * link, and every older one dies. Someone who joined (verified address) gets a 409, as does an
 * account that is not ACTIVE (it could not sign in after accepting).
 */
export async function resendInvitation(ctx: AppContext, action: AdminAction): Promise<void> {
  if (action.actorId === action.targetId) throw forbidden(adminRuleMessages.noSelfEdit, 'SELF_EDIT')
  const links = pageLinks(ctx.config.appUrl)
  await commitChange(ctx, async (c) => {
    const actor = await stillAllowedActor(c.trx, action)
    const target = await lockTarget(c.trx, action.targetId)
    if (target.email_verified_at) throw conflict(adminRuleMessages.invitationAccepted, 'INVITATION_ACCEPTED')
    if (target.status !== 'ACTIVE') throw conflict(adminRuleMessages.invitationInactive, 'NOT_ACTIVE')
    const token = await issueOneTimeToken(c.trx, target.id, 'invitation', c.now)
    await c.record({
      userId: target.id,
      ...actor.entry,
      kind: 'other',
      activity: `Resent invitation to ${target.name} (${target.email})`,
      ip: action.ip,
    })
    await c.mail({ template: 'invitation', lang: action.lang, to: target.email, name: target.name, link: links.acceptInvite(token), invitedBy: actor.name })
  })
}
