import { sql } from 'kysely'
import { pageLinks } from '~shared/paths'
import { adminRuleMessages } from '~shared/schemas/admin'
import { issueOneTimeToken, retireOneTimeTokens } from '~server/auth/one-time-tokens'
import { revokeUserSessions } from '~server/auth/sessions'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { describeChanges, type EditableFields } from '~server/data/users/describe-changes'
import { countOtherActiveAdmins, isEmailTaken, type UserRecord, userColumns } from '~server/data/users/users'
import { conflict, forbidden } from '~server/http/errors'
import { type AdminAction, ACTIVE_ADMINS_LOCK, lockTarget, stillAllowedActor } from './admin-rules'

/**
 * An admin's edit of another account, with the rules enforced in the transaction that makes the
 * change (docs/decisions/0105):
 *
 * - never one's own account through this call; every other account, other admins included;
 * - at least one ACTIVE ADMIN at all times: a change that could take an active admin away takes
 *   one transaction-scoped advisory lock first, so two such changes run one after the other and
 *   the second sees the first (two admins demoting each other at the same instant: one wins, the
 *   other is refused);
 * - a role, status or e-mail change ends the target's sessions at once;
 * - a changed e-mail must be free, becomes unverified and gets a new verification e-mail.
 */
export async function editUser(ctx: AppContext, action: AdminAction, requested: EditableFields): Promise<UserRecord> {
  if (action.actorId === action.targetId) throw forbidden(adminRuleMessages.noSelfEdit, 'SELF_EDIT')
  const links = pageLinks(ctx.config.appUrl)
  const mayRemoveAnAdmin = (requested.role !== undefined && requested.role !== 'ADMIN') || (requested.status !== undefined && requested.status !== 'ACTIVE')
  try {
    return await commitChange(ctx, async (c) => {
      if (mayRemoveAnAdmin) await sql`SELECT pg_advisory_xact_lock(${ACTIVE_ADMINS_LOCK})`.execute(c.trx)
      const actor = await stillAllowedActor(c.trx, action)
      const target = await lockTarget(c.trx, action.targetId)
      const changes = describeChanges(target, requested)
      if (changes.fields.length === 0) return target

      const role = changes.values.role ?? target.role
      const status = changes.values.status ?? target.status
      if (target.role === 'ADMIN' && target.status === 'ACTIVE' && (role !== 'ADMIN' || status !== 'ACTIVE')) {
        if ((await countOtherActiveAdmins(c.trx, target.id)) === 0) throw conflict(adminRuleMessages.lastAdmin, 'LAST_ADMIN')
      }
      const emailChanged = changes.values.email !== undefined
      if (emailChanged && (await isEmailTaken(c.trx, changes.values.email!))) throw conflict(adminRuleMessages.emailTaken, 'EMAIL_TAKEN')

      const updated = await c.trx
        .updateTable('users')
        .set({ ...changes.values, updated_at: c.now, ...(emailChanged ? { email_verified_at: null } : {}) })
        .where('id', '=', target.id)
        .returning(userColumns)
        .executeTakeFirstOrThrow()
      if (changes.fields.some((field) => field === 'role' || field === 'status' || field === 'email')) {
        await revokeUserSessions(c.trx, target.id, `changed by an administrator: ${changes.fields.join(', ')}`, c.now)
      }
      if (emailChanged) {
        // Links mailed to the old address stop working; the new address must prove itself.
        await retireOneTimeTokens(c.trx, target.id, 'reset-password', c.now)
        await retireOneTimeTokens(c.trx, target.id, 'invitation', c.now)
        const token = await issueOneTimeToken(c.trx, target.id, 'verify-email', c.now)
        await c.mail({ template: 'verify-email', lang: action.lang, to: updated.email, name: updated.name, link: links.verifyEmail(token, updated.email) })
      }
      const onlyRole = changes.fields.length === 1 && changes.fields[0] === 'role'
      await c.record({
        userId: target.id,
        ...actor.entry,
        kind: 'updated',
        activity: `${onlyRole ? 'Changed role of' : 'Updated user'} ${target.name} (${target.email})`,
        details: changes.details,
        changes: changes.changes,
        ip: action.ip,
      })
      if (changes.values.role !== undefined) await c.emitUser('user.role_changed', target.id, { from: target.role, to: changes.values.role })
      if (changes.values.status !== undefined) await c.emitUser('user.status_changed', target.id, { from: target.status, to: changes.values.status })
      const otherFields = changes.fields.filter((field) => field !== 'role' && field !== 'status')
      if (otherFields.length > 0) await c.emitUser('user.updated', target.id, { changes: otherFields })
      return updated
    })
  } catch (error) {
    // Another request took the address between the check and the update.
    if ((error as { code?: unknown }).code === '23505') throw conflict(adminRuleMessages.emailTaken, 'EMAIL_TAKEN')
    throw error
  }
}
