import type { Language } from '~shared/constants'
import type { AuthResult } from '~shared/schemas/user'
import { startSession } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { toAdminUser, toUser, type UserRecord } from '~server/data/users/users'
import { newSignInNotice, seenDevicesSince } from './new-sign-in-notice'

/**
 * The end of every successful sign-in, once the account has proved who it is and may sign in: the
 * new session with its activity entry, its tokens, the user.signed_in event, and, from a browser
 * and system the account has not used lately, the new-sign-in e-mail, in the session's transaction.
 */
export async function openSession(
  ctx: AppContext,
  input: {
    user: UserRecord
    ip: string
    userAgent: string | null
    lang: Language
    /** The entry's text, when not plain "Logged in". */
    activity?: string
    /** How the account proved who it is (RFC 8176); a password when absent. */
    amr?: readonly string[]
    /** The `method` of the user.signed_in event: password unless said. */
    method?: 'password' | 'passkey' | 'provider'
  },
): Promise<AuthResult> {
  const { user, ip, userAgent, lang } = input
  const now = ctx.clock()
  // The session, its entry, the user.signed_in event and any notice, in one transaction (decision 0521);
  // the session's start reads the account's known browsers and the account in the same statement (decision 0543).
  const { sessionId, refreshToken } = await commitChange(ctx, async (c) => {
    const started = await startSession(c.trx, {
      userId: user.id,
      ip,
      userAgent,
      now,
      lifetimes: ctx.lifetimes,
      entry: { kind: 'logged in', activity: input.activity ?? 'Logged in' },
      ...(input.amr ? { amr: input.amr } : {}),
      seenSince: seenDevicesSince(now),
    })
    const notice = newSignInNotice(ctx, { user, seen: started.seenUserAgents, ip, userAgent, now, lang })
    if (notice) await c.mail(notice)
    if (started.account) await c.emit('user.signed_in', { user: toAdminUser(started.account), method: input.method ?? 'password' })
    return started
  })
  const accessToken = ctx.accessTokens.sign({ userId: user.id, sessionId })
  return { accessToken, refreshToken, csrfToken: ctx.csrf.forSession(sessionId), user: toUser(user) }
}
