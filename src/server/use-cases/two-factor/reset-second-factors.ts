import { pageLinks } from '~shared/paths'
import { adminRuleMessages } from '~shared/schemas/admin'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { forbidden } from '~server/http/errors'
import { type AdminAction, lockTarget, stillAllowedActor } from '~server/use-cases/users/admin-rules'
import { turnOffSecondFactors } from './disable-two-factor'
import { removeAllPasskeys } from '~server/use-cases/passkeys/remove-passkey'

/**
 * An admin turns a user's second factors off (a lost phone): the authenticator app's secret, the
 * recovery codes, any sign-in waiting for its second step and every passkey are gone, and the
 * account signs in with its password alone. The user is told by e-mail. Never on one's own
 * account (the edit rules). A user with nothing to reset: nothing changes, nothing is written or
 * sent; answers whether anything was on.
 */
export async function resetSecondFactors(ctx: AppContext, action: AdminAction): Promise<boolean> {
  if (action.actorId === action.targetId) throw forbidden(adminRuleMessages.noSelfEdit, 'SELF_EDIT')
  const links = pageLinks(ctx.config.appUrl)
  return commitChange(ctx, async (c) => {
    const actor = await stillAllowedActor(c.trx, action)
    const target = await lockTarget(c.trx, action.targetId)
    const twoFactorWasOn = await turnOffSecondFactors(c, target.id)
    const passkeys = await removeAllPasskeys(c.trx, target.id)
    if (!twoFactorWasOn && passkeys === 0) return false
    await c.record({
      userId: target.id,
      ...actor.entry,
      kind: 'security',
      activity: `Reset two-factor authentication and passkeys of ${target.name} (${target.email})`,
      details: twoFactorWasOn ? (passkeys > 0 ? 'Two-factor authentication turned off, passkeys removed' : 'Two-factor authentication turned off') : 'Passkeys removed',
      ip: action.ip,
    })
    await c.emitUser('user.security_changed', target.id, { change: 'second-factors-reset' })
    await c.mail({
      template: 'second-factors-reset-by-admin',
      lang: action.lang,
      to: target.email,
      name: target.name,
      profileLink: links.profile(),
      resetLink: links.forgotPassword(),
    })
    return true
  })
}
