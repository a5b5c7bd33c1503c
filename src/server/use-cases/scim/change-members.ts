import type { Role } from '~shared/constants'
import { revokeUserSessions } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { roleMembersOutside } from '~server/data/scim/scim-groups'
import { countOtherActiveAdmins, isUuid } from '~server/data/users/users'
import { invalidValue } from '~server/scim/errors'
import type { MembershipChange } from '~server/scim/group-patch'
import { lastAdmin, lockForScimWrite, type ScimAction, stillAllowedApplication } from './scim-rules'

/**
 * A directory changes a group's members, that is, people's roles (contract section 13): adding a
 * member gives the group's role, removing one gives CLIENT, each as an admin's role change does:
 * the account's sessions end, an entry "Changed role of …" names the application. The last active
 * ADMIN is never taken away (403, and nothing of the call is changed). Adding an account that
 * does not exist is a 400 `invalidValue`; removing one that is not a member changes nothing.
 */
export async function changeGroupMembers(ctx: AppContext, action: ScimAction, role: Role, change: MembershipChange): Promise<void> {
  await commitChange(ctx, async (c) => {
    await lockForScimWrite(c.trx)
    const actor = await stillAllowedApplication(c.trx, action)
    const joining = new Set(change.replaceWith ?? change.add)
    for (const id of joining) if (!isUuid(id)) throw invalidValue(`No user ${JSON.stringify(id)}`)
    const leaving = new Set(change.remove.filter(isUuid))
    if (change.replaceWith && role !== 'CLIENT') for (const id of await roleMembersOutside(c.trx, role, change.replaceWith)) leaving.add(id)

    const setRole = async (id: string, next: Role, mustExist: boolean) => {
      const user = await c.trx.selectFrom('users').select(['id', 'name', 'email', 'role', 'status']).where('id', '=', id).forUpdate().executeTakeFirst()
      if (!user) {
        if (mustExist) throw invalidValue(`No user ${JSON.stringify(id)}`)
        return
      }
      if (user.role === next) return
      if (user.role === 'ADMIN' && user.status === 'ACTIVE' && (await countOtherActiveAdmins(c.trx, user.id)) === 0) throw lastAdmin()
      await c.trx.updateTable('users').set({ role: next, updated_at: c.now }).where('id', '=', user.id).execute()
      await revokeUserSessions(c.trx, user.id, `changed by SCIM (${actor.name}): role`, c.now)
      await c.record({
        userId: user.id,
        ...actor.entry,
        kind: 'updated',
        activity: `Changed role of ${user.name} (${user.email})`,
        details: `role: ${user.role} → ${next}; by SCIM (${actor.name})`,
        changes: [{ field: 'role', from: user.role, to: next }],
        ip: action.ip,
      })
      await c.emitUser('user.role_changed', user.id, { from: user.role, to: next })
    }
    for (const id of joining) await setRole(id, role, true)
    // Leaving a role's group gives CLIENT; leaving CLIENT's changes nothing (there is no lower role).
    if (role !== 'CLIENT') for (const id of leaving) if (!joining.has(id)) await setRole(id, 'CLIENT', false)
  })
}
