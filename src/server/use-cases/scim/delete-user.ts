import { revokeUserSessions } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { isUuid } from '~server/data/users/users'
import { deleteAccountAppData, deleteAccountRow, detachActivity } from '~server/data/own-data/account-deletion'
import { scimUserColumns } from '~server/data/scim/scim-users'
import { scimForbidden, scimNotFound } from '~server/scim/errors'
import { lockForScimWrite, type ScimAction, stillAllowedApplication } from './scim-rules'

/**
 * A directory deletes an account (DELETE /Users/:id): in one transaction it becomes INACTIVE and is
 * deleted, its sessions ended (its apps hear a back-channel logout), its grants and tokens at every
 * app deleted, its activity entries kept with their user unknown. An ADMIN is refused (403), as an
 * admin's delete refuses one: another admin changes the role first.
 */
export async function deleteScimUser(ctx: AppContext, action: ScimAction, id: string): Promise<void> {
  if (!isUuid(id)) throw scimNotFound(`No user ${JSON.stringify(id)}`)
  await commitChange(ctx, async (c) => {
    await lockForScimWrite(c.trx)
    const actor = await stillAllowedApplication(c.trx, action)
    const target = await c.trx.selectFrom('users').select(scimUserColumns).where('id', '=', id).forUpdate().executeTakeFirst()
    if (!target) throw scimNotFound(`No user ${JSON.stringify(id)}`)
    if (target.role === 'ADMIN') throw scimForbidden('Admin users cannot be deleted')
    await c.record({
      userId: target.id,
      ...actor.entry,
      kind: 'deleted',
      activity: `Deleted user ${target.name} (${target.email})`,
      details: `role: ${target.role}; status: ${target.status} → INACTIVE; deleted by SCIM (${actor.name})`,
      ip: action.ip,
    })
    await c.trx.updateTable('users').set({ status: 'INACTIVE', updated_at: c.now }).where('id', '=', target.id).execute()
    await revokeUserSessions(c.trx, target.id, `account deleted by SCIM (${actor.name})`, c.now)
    await c.emit('user.deleted', { id: target.id, email: target.email })
    await deleteAccountAppData(c.trx, target.id)
    await detachActivity(c.trx, target.id)
    await deleteAccountRow(c.trx, target.id)
  })
}
