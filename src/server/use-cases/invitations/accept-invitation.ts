import { passwordPolicyProblem } from '~shared/password-policy'
import type { AuthResult } from '~shared/schemas/user'
import type { CookieJar } from '~server/auth/device-tokens'
import { consumeOneTimeToken, findOneTimeToken, isTokenShaped, retireOneTimeTokens } from '~server/auth/one-time-tokens'
import { accountRefusal } from '~server/auth/session-check'
import { startSession } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { findUserById, toUser, userColumns } from '~server/data/users/users'
import { badRequest, fieldErrors } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'

export const INVALID_INVITATION = 'Invalid or expired invitation link'
const invalidLink = () => badRequest(INVALID_INVITATION, 'INVALID_TOKEN')

export interface AcceptInvitationInput {
  token: string
  password: string
  ip: string
  userAgent: string | null
  /** The browser's device cookie (decision 0301): this browser is remembered for the account. */
  deviceCookie: CookieJar
}

/**
 * The invited person chooses a password through the e-mailed link: the link is used up, the
 * password set, the address verified (the link proved it) and the person signed in, all in one
 * transaction. An unknown, used or expired link is the same 400, which says nothing of any
 * account. An account an admin made INACTIVE or SUSPENDED since is refused as sign-in refuses it,
 * and its link stays unused.
 */
export async function acceptInvitation(ctx: AppContext, input: AcceptInvitationInput): Promise<AuthResult> {
  const { token, password, ip } = input
  await ctx.limiter.consume(RULES.acceptInvitationByIp, ip)
  if (!isTokenShaped(token)) throw invalidLink()
  const userId = await findOneTimeToken(ctx.db, token, 'invitation', ctx.clock())
  const user = userId ? await findUserById(ctx.db, userId) : undefined
  if (!user) throw invalidLink()
  const problem = passwordPolicyProblem(password, user.email)
  if (problem) throw fieldErrors([{ field: 'password', message: problem }])

  const passwordHash = await ctx.hasher.hash(password)
  const accepted = await commitChange(ctx, async (c) => {
    // Used up here, in the same transaction as the change: a link works exactly once.
    if ((await consumeOneTimeToken(c.trx, token, 'invitation', c.now)) !== user.id) return null
    const updated = await c.trx
      .updateTable('users')
      .set((eb) => ({ password_hash: passwordHash, updated_at: c.now, email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(c.now)) }))
      .where('id', '=', user.id)
      .returning(userColumns)
      .executeTakeFirstOrThrow()
    const refusal = accountRefusal(updated)
    if (refusal) throw refusal
    // A reset link mailed meanwhile would set the password a second time: it dies with the invitation.
    await retireOneTimeTokens(c.trx, user.id, 'reset-password', c.now)
    await c.record({ userId: user.id, kind: 'verified', activity: 'Accepted invitation', ip })
    if (user.email_verified_at === null) await c.emitUser('user.verified', user.id)
    await c.emitUser('user.password_changed', user.id, { reset: false })
    const session = await startSession(c.trx, {
      userId: user.id,
      ip,
      userAgent: input.userAgent,
      now: c.now,
      lifetimes: ctx.lifetimes,
      entry: { kind: 'logged in', activity: 'Logged in' },
    })
    await c.emitUser('user.signed_in', user.id, { method: 'password' })
    return { user: updated, ...session }
  })
  if (!accepted) throw invalidLink()
  ctx.deviceTokens.remember(input.deviceCookie, user.id, ctx.clock())
  const { sessionId, refreshToken } = accepted
  return {
    accessToken: ctx.accessTokens.sign({ userId: user.id, sessionId }),
    refreshToken,
    csrfToken: ctx.csrf.forSession(sessionId),
    user: toUser(accepted.user),
  }
}
