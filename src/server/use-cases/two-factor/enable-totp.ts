import type { Language } from '~shared/constants'
import { pageLinks } from '~shared/paths'
import { newRecoveryCodes, hashRecoveryCode } from '~server/auth/recovery-codes'
import type { AuthState } from '~server/auth/session-check'
import { acceptedTotpStep } from '~server/auth/totp'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { enableTotp as enableTotpRow, findTotp, markMfaEnabled, replaceRecoveryCodes } from '~server/data/two-factor/second-factors'
import { conflict, fieldErrors } from '~server/http/errors'

/**
 * Turns the authenticator app on with a code made from the secret of the waiting setup: the
 * account's sign-ins ask for a second step from now on. Answers the recovery codes, shown once.
 */
export async function enableTotp(ctx: AppContext, input: AuthState & { code: string; ip: string; lang: Language }): Promise<{ recoveryCodes: string[] }> {
  const { user, code, ip, lang } = input
  const row = await findTotp(ctx.db, user.id)
  if (row?.enabled_at) throw conflict('Two-factor authentication is already on', 'MFA_ALREADY_ENABLED')
  const secret = row ? ctx.totpSealer.open(row.secret_sealed) : null
  if (!row || !secret) throw conflict('Start the setup of two-factor authentication first', 'MFA_SETUP_REQUIRED')

  const step = acceptedTotpStep(secret, code, ctx.clock(), null)
  if (step === null) throw fieldErrors([{ field: 'code', message: 'Invalid code' }])

  const recoveryCodes = newRecoveryCodes()
  const links = pageLinks(ctx.config.appUrl)
  await commitChange(ctx, async (c) => {
    // Two requests with the same code: only one turns it on.
    if (!(await enableTotpRow(c.trx, user.id, step, c.now))) throw conflict('Two-factor authentication is already on', 'MFA_ALREADY_ENABLED')
    await replaceRecoveryCodes(c.trx, user.id, recoveryCodes.map(hashRecoveryCode), c.now)
    await markMfaEnabled(c.trx, user.id)
    await c.record({ userId: user.id, kind: 'security', activity: 'Enabled two-factor authentication', ip })
    await c.emitUser('user.security_changed', user.id, { change: 'two-factor-enabled' })
    await c.mail({ template: 'two-factor-enabled', lang, to: user.email, name: user.name, profileLink: links.profile(), resetLink: links.forgotPassword() })
  })
  return { recoveryCodes }
}
