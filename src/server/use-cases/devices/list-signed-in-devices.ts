import type { SignedInDevices } from '~shared/schemas/sessions'
import type { AuthState } from '~server/auth/session-check'
import type { AppContext } from '~server/context'
import { listLiveSessions, toSignedInDevice } from '~server/data/devices/sessions'

/** The caller's live sessions, most recently used first, the one asking marked current. */
export async function listSignedInDevices(ctx: AppContext, auth: AuthState): Promise<SignedInDevices> {
  const rows = await listLiveSessions(ctx.db, auth.user.id, ctx.clock())
  return { sessions: rows.map((row) => toSignedInDevice(row, auth.sessionId)) }
}
