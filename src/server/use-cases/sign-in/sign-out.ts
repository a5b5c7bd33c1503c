import { revokeSession, revokeUserSessions } from '~server/auth/sessions'
import type { AuthState } from '~server/auth/session-check'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'

/** Ends this session: its refresh token dies and its access token is refused from the next call. */
export async function signOut(ctx: AppContext, input: AuthState & { ip: string }): Promise<void> {
  await commitChange(ctx, async (c) => {
    await revokeSession(c.trx, input.sessionId, 'logout', c.now)
    await c.record({ userId: input.user.id, kind: 'logged out', activity: 'Logged out', ip: input.ip })
  })
}

/** Ends every session of the user, on every device. */
export async function signOutEverywhere(ctx: AppContext, input: AuthState & { ip: string }): Promise<void> {
  await commitChange(ctx, async (c) => {
    await revokeUserSessions(c.trx, input.user.id, 'logout everywhere', c.now)
    await c.record({ userId: input.user.id, kind: 'logged out', activity: 'Logged out of all sessions', ip: input.ip })
    await c.emitUser('user.signed_out_everywhere', input.user.id, { by: 'user' })
  })
}
