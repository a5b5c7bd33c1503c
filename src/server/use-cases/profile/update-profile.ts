import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { describeChanges } from '~server/data/users/describe-changes'
import { type UserRecord, userColumns } from '~server/data/users/users'

/** Changes the signed-in user's own name and phone; nothing is written when nothing changes. */
export async function updateProfile(
  ctx: AppContext,
  input: { user: UserRecord; name?: string | undefined; phone?: string | null | undefined; ip: string },
): Promise<UserRecord> {
  const { user, ip } = input
  const changes = describeChanges(user, { name: input.name, phone: input.phone })
  if (changes.fields.length === 0) return user
  return commitChange(ctx, async (c) => {
    const row = await c.trx
      .updateTable('users')
      .set({ ...changes.values, updated_at: c.now })
      .where('id', '=', user.id)
      .returning(userColumns)
      .executeTakeFirstOrThrow()
    await c.record({ userId: user.id, kind: 'updated', activity: 'Updated profile', details: changes.details, ip })
    await c.emitUser('user.updated', user.id, { changes: changes.fields })
    return row
  })
}
