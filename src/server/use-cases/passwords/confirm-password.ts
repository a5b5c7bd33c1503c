import type { AppContext } from '~server/context'
import { commitChange } from '~server/change'
import type { UserRecord } from '~server/data/users/users'
import { findCredentialsByEmail } from '~server/data/users/users'
import { fieldErrors } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'

/**
 * The signed-in user's password, asked again before a change to how they sign in (two-factor on,
 * off, new recovery codes). Guesses count with the password change's (one budget for guessing the
 * password from a session); a wrong one is recorded and answered as the password change answers it.
 */
export async function confirmPassword(ctx: AppContext, input: { user: UserRecord; password: string; ip: string }): Promise<void> {
  const { user, password, ip } = input
  await ctx.limiter.consume(RULES.changePasswordByUser, user.id)
  const credentials = await findCredentialsByEmail(ctx.db, user.email)
  if (!credentials || !(await ctx.hasher.verify(credentials.password_hash, password))) {
    await commitChange(ctx, (c) => c.record({ userId: user.id, kind: 'other', activity: 'Failed password confirmation', details: 'Wrong current password', ip }))
    throw fieldErrors([{ field: 'password', message: 'Current password is incorrect' }])
  }
  await ctx.limiter.reset(RULES.changePasswordByUser, user.id)
}
