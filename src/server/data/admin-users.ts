import { sql, type Transaction } from 'kysely'
import { adminRuleMessages } from '~shared/schemas/admin'
import { issueOneTimeToken, retireOneTimeTokens } from '~server/auth/one-time-tokens'
import { revokeUserSessions } from '~server/auth/sessions'
import type { AppContext } from '~server/context'
import type { Database } from '~server/db/types'
import { conflict, forbidden, notFound } from '~server/http/errors'
import { pageLinks } from '~shared/paths'
import { commitChange } from '~server/change'
import { describeChanges, type EditableFields } from './describe-changes'
import { type UserRecord, userColumns } from './users'

/**
 * An admin's edits and deletions of other accounts, with the contract's rules enforced here, in
 * the transaction that makes the change:
 *
 * - never one's own account through these calls; every other account, other admins included;
 * - at least one ACTIVE ADMIN at all times: a change that could take an active admin away takes
 *   one transaction-scoped advisory lock first, so two such changes run one after the other and
 *   the second sees the first (two admins demoting each other at the same instant: one wins, the
 *   other is refused);
 * - a role, status or e-mail change, or a deletion, ends the target's sessions at once;
 * - a changed e-mail must be free, becomes unverified and gets a new verification e-mail.
 */

/** Key of the advisory lock serialising changes that may remove an active admin. */
const ACTIVE_ADMINS_LOCK = 72_530_001

export interface AdminAction {
  actorId: string
  targetId: string
  ip: string
}

type Trx = Transaction<Database>

export async function updateUserAsAdmin(ctx: AppContext, action: AdminAction, requested: EditableFields): Promise<UserRecord> {
  if (action.actorId === action.targetId) throw forbidden(adminRuleMessages.noSelfEdit, 'SELF_EDIT')
  const links = pageLinks(ctx.config.appUrl)
  const mayRemoveAnAdmin = (requested.role !== undefined && requested.role !== 'ADMIN') || (requested.status !== undefined && requested.status !== 'ACTIVE')
  try {
    return await commitChange(ctx, async (c) => {
      if (mayRemoveAnAdmin) await sql`SELECT pg_advisory_xact_lock(${ACTIVE_ADMINS_LOCK})`.execute(c.trx)
      await assertStillActiveAdmin(c.trx, action.actorId)
      const target = await lockUser(c.trx, action.targetId)
      const changes = describeChanges(target, requested)
      if (changes.fields.length === 0) return target

      const role = changes.values.role ?? target.role
      const status = changes.values.status ?? target.status
      if (target.role === 'ADMIN' && target.status === 'ACTIVE' && (role !== 'ADMIN' || status !== 'ACTIVE')) {
        const others = await c.trx
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('role', '=', 'ADMIN')
          .where('status', '=', 'ACTIVE')
          .where('id', '!=', target.id)
          .executeTakeFirstOrThrow()
        if (Number(others.n) === 0) throw conflict(adminRuleMessages.lastAdmin, 'LAST_ADMIN')
      }
      const emailChanged = changes.values.email !== undefined
      if (emailChanged) {
        const taken = await c.trx.selectFrom('users').select('id').where('email', '=', changes.values.email!).executeTakeFirst()
        if (taken) throw conflict(adminRuleMessages.emailTaken, 'EMAIL_TAKEN')
      }

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
        const token = await issueOneTimeToken(c.trx, target.id, 'verify-email', c.now)
        await c.mail({ template: 'verify-email', to: updated.email, name: updated.name, link: links.verifyEmail(token, updated.email) })
      }
      const onlyRole = changes.fields.length === 1 && changes.fields[0] === 'role'
      await c.record({
        userId: target.id,
        actorId: action.actorId,
        kind: 'updated',
        activity: `${onlyRole ? 'Changed role of' : 'Updated user'} ${target.name} (${target.email})`,
        details: changes.details,
        ip: action.ip,
      })
      return updated
    })
  } catch (error) {
    // Another request took the address between the check and the update.
    if ((error as { code?: unknown }).code === '23505') throw conflict(adminRuleMessages.emailTaken, 'EMAIL_TAKEN')
    throw error
  }
}

export async function deleteUserAsAdmin(ctx: AppContext, action: AdminAction): Promise<void> {
  if (action.actorId === action.targetId) throw forbidden(adminRuleMessages.noSelfDelete, 'SELF_DELETE')
  await commitChange(ctx, async (c) => {
    const actor = await assertStillActiveAdmin(c.trx, action.actorId)
    // A second, concurrent delete waits here, then finds nothing: a 404.
    const target = await lockUser(c.trx, action.targetId)
    if (target.role === 'ADMIN') throw forbidden(adminRuleMessages.noAdminDelete, 'ADMIN_DELETE')
    if (target.status !== 'INACTIVE') throw conflict(adminRuleMessages.inactiveBeforeDelete, 'NOT_INACTIVE')
    // Written before the user goes: the entry stays, its user shown as unknown from then on.
    await c.record({
      userId: target.id,
      actorId: action.actorId,
      kind: 'deleted',
      activity: `Deleted user ${target.name} (${target.email})`,
      // The entry's user is gone with the account; the details keep who deleted it.
      details: `role: ${target.role}; status: ${target.status}; deleted by ${actor.name} (${actor.email})`,
      ip: action.ip,
    })
    await revokeUserSessions(c.trx, target.id, 'account deleted', c.now)
    await c.trx.deleteFrom('users').where('id', '=', target.id).execute()
  })
}

async function lockUser(trx: Trx, id: string): Promise<UserRecord> {
  const user = await trx.selectFrom('users').select(userColumns).where('id', '=', id).forUpdate().executeTakeFirst()
  if (!user) throw notFound('User not found', 'USER_NOT_FOUND')
  return user
}

/** The acting admin may have been demoted or suspended a moment ago by another admin. */
async function assertStillActiveAdmin(trx: Trx, actorId: string): Promise<{ name: string; email: string }> {
  const actor = await trx.selectFrom('users').select(['role', 'status', 'name', 'email']).where('id', '=', actorId).executeTakeFirst()
  if (actor?.role !== 'ADMIN' || actor.status !== 'ACTIVE') throw forbidden()
  return actor
}
