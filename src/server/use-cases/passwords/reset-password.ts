import type { Language } from '~shared/constants'
import { passwordPolicyProblem } from '~shared/password-policy'
import { pageLinks } from '~shared/paths'
import type { CookieJar } from '~server/auth/device-tokens'
import { consumeOneTimeToken, findOneTimeToken, isTokenShaped, retireOneTimeTokens } from '~server/auth/one-time-tokens'
import { revokeUserSessions } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { findUserById } from '~server/data/users/users'
import { badRequest, fieldErrors } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'

const invalidLink = () => badRequest('Invalid or expired reset link', 'INVALID_TOKEN')

/**
 * Sets a new password through the e-mailed reset link: every session of the user ends, the
 * address counts as verified (the link proved it), and the owner is told by e-mail.
 */
export async function resetPassword(
  ctx: AppContext,
  input: {
    token: string
    password: string
    ip: string
    /** The language of the request, for the e-mail telling the owner. */
    lang: Language
    /** The browser's device cookie (decision 0301). */
    deviceCookie: CookieJar
  },
): Promise<void> {
  const { token, password, ip } = input
  await ctx.limiter.consume(RULES.resetPasswordByIp, ip)
  if (!isTokenShaped(token)) throw invalidLink()
  const userId = await findOneTimeToken(ctx.db, token, 'reset-password', ctx.clock())
  const user = userId ? await findUserById(ctx.db, userId) : undefined
  if (!user) throw invalidLink()
  const problem = passwordPolicyProblem(password, user.email)
  if (problem) throw fieldErrors([{ field: 'password', message: problem }])

  const links = pageLinks(ctx.config.appUrl)
  const passwordHash = await ctx.hasher.hash(password)
  const reset = await commitChange(ctx, async (c) => {
    // Used up here, in the same transaction as the change: a link works exactly once.
    if ((await consumeOneTimeToken(c.trx, token, 'reset-password', c.now)) !== user.id) return false
    await c.trx
      .updateTable('users')
      .set((eb) => ({
        password_hash: passwordHash,
        updated_at: c.now,
        // Following the e-mailed link proves the address is the user's.
        email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(c.now)),
      }))
      .where('id', '=', user.id)
      .execute()
    await revokeUserSessions(c.trx, user.id, 'password reset', c.now)
    // The person has a password now: an invitation still waiting would set it a second time.
    await retireOneTimeTokens(c.trx, user.id, 'invitation', c.now)
    await c.record({ userId: user.id, kind: 'reset', activity: 'Reset password', ip })
    await c.emitUser('user.password_changed', user.id, { reset: true })
    await c.mail({ template: 'password-changed', lang: input.lang, to: user.email, name: user.name, resetLink: links.forgotPassword() })
    return true
  })
  if (!reset) throw invalidLink()
  // A throttled owner can get back in: the reset clears the sign-in counter, and this browser
  // (which followed the e-mailed link) is remembered, so that its sign-ins no longer count
  // against the account however hard someone else keeps trying (decision 0301).
  await ctx.limiter.reset(RULES.signInByEmail, user.email)
  ctx.deviceTokens.remember(input.deviceCookie, user.id, ctx.clock())
}
