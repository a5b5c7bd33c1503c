import type { Language } from '~shared/constants'
import { pageLinks } from '~shared/paths'
import type { AuthState } from '~server/auth/session-check'
import type { Change } from '~server/change'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { deleteSecondFactors } from '~server/data/two-factor/second-factors'
import { confirmPassword } from '~server/use-cases/passwords/confirm-password'

/**
 * Turns an account's second factors off inside the caller's change: the app's secret, the
 * recovery codes and any sign-in waiting for its second step are gone, and `users.mfa_enabled`
 * is false. Writes no entry and no mail: the caller (the owner below, an administrator's reset)
 * records it in its own words. Answers whether anything was on.
 */
export function turnOffSecondFactors(change: Pick<Change, 'trx'>, userId: string): Promise<boolean> {
  return deleteSecondFactors(change.trx, userId)
}

/** The owner turns two-factor off, given the password; the account is told by e-mail. Nothing on: nothing to do. */
export async function disableTwoFactor(ctx: AppContext, input: AuthState & { password: string; ip: string; lang: Language }): Promise<void> {
  const { user, ip, lang } = input
  await confirmPassword(ctx, { user, password: input.password, ip })
  const links = pageLinks(ctx.config.appUrl)
  await commitChange(ctx, async (c) => {
    if (!(await turnOffSecondFactors(c, user.id))) return
    await c.record({ userId: user.id, kind: 'security', activity: 'Disabled two-factor authentication', ip })
    await c.emitUser('user.security_changed', user.id, { change: 'two-factor-disabled' })
    await c.mail({ template: 'two-factor-disabled', lang, to: user.email, name: user.name, profileLink: links.profile(), resetLink: links.forgotPassword() })
  })
}
