import type { Language } from '~shared/constants'
import { pageLinks } from '~shared/paths'
import { hashRecoveryCode, newRecoveryCodes } from '~server/auth/recovery-codes'
import type { AuthState } from '~server/auth/session-check'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { lockTotp, replaceRecoveryCodes } from '~server/data/two-factor/second-factors'
import { conflict } from '~server/http/errors'
import { confirmPassword } from '~server/use-cases/passwords/confirm-password'

/** A new set of recovery codes, given the password; the old set stops working and the account is told. */
export async function regenerateRecoveryCodes(
  ctx: AppContext,
  input: AuthState & { password: string; ip: string; lang: Language },
): Promise<{ recoveryCodes: string[] }> {
  const { user, ip, lang } = input
  await confirmPassword(ctx, { user, password: input.password, ip })
  const recoveryCodes = newRecoveryCodes()
  const links = pageLinks(ctx.config.appUrl)
  await commitChange(ctx, async (c) => {
    if (!(await lockTotp(c.trx, user.id))?.enabled_at) throw conflict('Two-factor authentication is off', 'MFA_NOT_ENABLED')
    await replaceRecoveryCodes(c.trx, user.id, recoveryCodes.map(hashRecoveryCode), c.now)
    await c.record({ userId: user.id, kind: 'security', activity: 'Regenerated recovery codes', ip })
    await c.emitUser('user.security_changed', user.id, { change: 'recovery-codes-replaced' })
    await c.mail({ template: 'recovery-codes-replaced', lang, to: user.email, name: user.name, profileLink: links.profile(), resetLink: links.forgotPassword() })
  })
  return { recoveryCodes }
}
