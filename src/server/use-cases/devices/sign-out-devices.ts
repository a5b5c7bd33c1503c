import type { AuthState } from '~server/auth/session-check'
import { describeUserAgent } from '~server/auth/user-agent'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { endLiveSession, endOtherLiveSessions } from '~server/data/devices/sessions'
import { isUuid } from '~server/data/users/users'
import { notFound } from '~server/http/errors'

/**
 * Signing out other devices from the signed-in devices list. An ended session's refresh token is
 * dead and its access token is refused on its next call: the session check reads the session's
 * row on every call (auth/session-check.ts).
 */

const sessionNotFound = () => notFound('Session not found', 'SESSION_NOT_FOUND')

/** Ends one of the caller's live sessions; another user's, an ended or an unknown one is the same 404. */
export async function signOutDevice(ctx: AppContext, input: AuthState & { targetId: string; ip: string }): Promise<void> {
  if (!isUuid(input.targetId)) throw sessionNotFound()
  await commitChange(ctx, async (c) => {
    const ended = await endLiveSession(c.trx, { userId: input.user.id, sessionId: input.targetId.toLowerCase(), reason: 'signed out from devices list', now: c.now })
    if (!ended) throw sessionNotFound()
    const { browser, os } = describeUserAgent(ended.user_agent)
    const details = [browser, os, ended.ip_address].filter(Boolean).join(' · ') || null
    await c.record({ userId: input.user.id, kind: 'logged out', activity: 'Logged out a device', details, ip: input.ip })
  })
}

/** Ends every live session of the caller but the one asking; nothing is written when there is none. */
export async function signOutOtherDevices(ctx: AppContext, input: AuthState & { ip: string }): Promise<number> {
  return commitChange(ctx, async (c) => {
    const ended = await endOtherLiveSessions(c.trx, { userId: input.user.id, keepSessionId: input.sessionId, reason: 'signed out from devices list', now: c.now })
    if (ended > 0) await c.record({ userId: input.user.id, kind: 'logged out', activity: 'Logged out of all other devices', details: null, ip: input.ip })
    return ended
  })
}
