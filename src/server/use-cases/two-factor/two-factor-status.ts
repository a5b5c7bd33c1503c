import type { SecondFactorMethod, TwoFactorStatus } from '~shared/schemas/two-factor'
import type { AppContext } from '~server/context'
import { countPasskeys, countRecoveryCodesLeft, findTotp } from '~server/data/two-factor/second-factors'

/** What protects the account beyond its password: the app, recovery codes left, passkeys. */
export async function twoFactorStatus(ctx: AppContext, userId: string): Promise<TwoFactorStatus> {
  const [totp, recoveryCodesLeft, passkeys] = await Promise.all([findTotp(ctx.db, userId), countRecoveryCodesLeft(ctx.db, userId), countPasskeys(ctx.db, userId)])
  return { totp: Boolean(totp?.enabled_at), recoveryCodesLeft, passkeys }
}

/** The ways the account can take a sign-in's second step. */
export async function secondFactorMethods(ctx: AppContext, userId: string): Promise<SecondFactorMethod[]> {
  const status = await twoFactorStatus(ctx, userId)
  const methods: SecondFactorMethod[] = []
  if (status.totp) methods.push('totp', 'recovery')
  if (status.passkeys > 0) methods.push('passkey')
  return methods
}
