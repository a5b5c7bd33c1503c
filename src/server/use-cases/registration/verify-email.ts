import { consumeOneTimeToken, isTokenShaped } from '~server/auth/one-time-tokens'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { badRequest } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'

/** Marks the address verified through the e-mailed link's token; the link works once. */
export async function verifyEmail(ctx: AppContext, input: { token: string; ip: string }): Promise<void> {
  const { token, ip } = input
  await ctx.limiter.consume(RULES.verifyEmailByIp, ip)
  const verified =
    isTokenShaped(token) &&
    (await commitChange(ctx, async (c) => {
      const userId = await consumeOneTimeToken(c.trx, token, 'verify-email', c.now)
      if (!userId) return false
      const newlyVerified = await c.trx
        .updateTable('users')
        .set({ email_verified_at: c.now, updated_at: c.now })
        .where('id', '=', userId)
        .where('email_verified_at', 'is', null)
        .executeTakeFirst()
      await c.record({ userId, kind: 'verified', activity: 'Verified email', ip })
      if (newlyVerified.numUpdatedRows > 0n) await c.emitUser('user.verified', userId)
      return true
    }))
  if (!verified) throw badRequest('Invalid or expired verification link', 'INVALID_TOKEN')
}
