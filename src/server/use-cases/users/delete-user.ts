import { adminRuleMessages } from '~shared/schemas/admin'
import { revokeUserSessions } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { conflict, forbidden } from '~server/http/errors'
import { type AdminAction, lockTarget, stillAllowedActor } from './admin-rules'

/**
 * An admin's deletion of another account: never one's own, never an ADMIN, only an INACTIVE
 * account. Its sessions end with it; its activity entries stay, their user shown as unknown.
 */
export async function deleteUser(ctx: AppContext, action: AdminAction): Promise<void> {
  if (action.actorId === action.targetId) throw forbidden(adminRuleMessages.noSelfDelete, 'SELF_DELETE')
  await commitChange(ctx, async (c) => {
    const actor = await stillAllowedActor(c.trx, action)
    // A second, concurrent delete waits here, then finds nothing: a 404.
    const target = await lockTarget(c.trx, action.targetId)
    if (target.role === 'ADMIN') throw forbidden(adminRuleMessages.noAdminDelete, 'ADMIN_DELETE')
    if (target.status !== 'INACTIVE') throw conflict(adminRuleMessages.inactiveBeforeDelete, 'NOT_INACTIVE')
    // Written before the user goes: the entry stays, its user shown as unknown from then on.
    await c.record({
      userId: target.id,
      ...actor.entry,
      kind: 'deleted',
      activity: `Deleted user ${target.name} (${target.email})`,
      // The entry's user is gone with the account; the details keep who deleted it.
      details: `role: ${target.role}; status: ${target.status}; deleted by ${actor.label}`,
      ip: action.ip,
    })
    await revokeUserSessions(c.trx, target.id, 'account deleted', c.now)
    await c.emit('user.deleted', { id: target.id, email: target.email })
    await c.trx.deleteFrom('users').where('id', '=', target.id).execute()
  })
}
