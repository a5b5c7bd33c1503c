import type { TotpSetup } from '~shared/schemas/two-factor'
import type { AuthState } from '~server/auth/session-check'
import { newTotpSecret, qrCodeDataUrl, totpAddress } from '~server/auth/totp'
import type { AppContext } from '~server/context'
import { findTotp, savePendingTotp } from '~server/data/two-factor/second-factors'
import { conflict } from '~server/http/errors'
import { confirmPassword } from '~server/use-cases/passwords/confirm-password'

const ISSUER = 'Accounts'

/**
 * Starts turning on the authenticator app, given the password: a new secret is kept (sealed)
 * until a code made from it turns it on (`enableTotp`); nothing about signing in changes yet.
 */
export async function setUpTotp(ctx: AppContext, input: AuthState & { password: string; ip: string }): Promise<TotpSetup> {
  const { user } = input
  await confirmPassword(ctx, { user, password: input.password, ip: input.ip })
  if ((await findTotp(ctx.db, user.id))?.enabled_at) throw conflict('Two-factor authentication is already on', 'MFA_ALREADY_ENABLED')

  const secret = newTotpSecret()
  if (!(await savePendingTotp(ctx.db, user.id, ctx.totpSealer.seal(secret), ctx.clock()))) {
    throw conflict('Two-factor authentication is already on', 'MFA_ALREADY_ENABLED')
  }
  const otpauthUrl = totpAddress(secret, ISSUER, user.email)
  return { secret, otpauthUrl, qrCode: await qrCodeDataUrl(otpauthUrl) }
}
