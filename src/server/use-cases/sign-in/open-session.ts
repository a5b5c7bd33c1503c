import type { Language } from '~shared/constants'
import type { AuthResult } from '~shared/schemas/user'
import { startSession } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { toUser, type UserRecord } from '~server/data/users/users'
import { newSignInNotice } from './new-sign-in-notice'

/**
 * The end of every successful sign-in, once the account has proved who it is and may sign in: the
 * new session with its activity entry, its tokens, and, from a browser and system the account has
 * not used lately, the new-sign-in e-mail queued in the same transaction as the session.
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
  },
): Promise<AuthResult> {
  const { user, ip, userAgent, lang } = input
  const now = ctx.clock()
  const start = {
    userId: user.id,
    ip,
    userAgent,
    now,
    lifetimes: ctx.lifetimes,
    entry: { kind: 'logged in', activity: input.activity ?? 'Logged in' },
    ...(input.amr ? { amr: input.amr } : {}),
  } as const
  const notice = await newSignInNotice(ctx, { user, ip, userAgent, now, lang })
  // The common case stays one statement (start_session); only a notice needs a transaction around it.
  const { sessionId, refreshToken } = notice
    ? await commitChange(ctx, async (c) => {
        const started = await startSession(c.trx, start)
        await c.mail(notice)
        return started
      })
    : await startSession(ctx.db, start)
  const accessToken = ctx.accessTokens.sign({ userId: user.id, sessionId })
  return { accessToken, refreshToken, csrfToken: ctx.csrf.forSession(sessionId), user: toUser(user) }
}
