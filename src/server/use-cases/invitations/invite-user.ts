import { pageLinks } from '~shared/paths'
import { adminRuleMessages } from '~shared/schemas/admin'
import type { Role } from '~shared/constants'
import { issueOneTimeToken } from '~server/auth/one-time-tokens'
import { generateToken } from '~server/auth/secure-token'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { type UserRecord, userColumns } from '~server/data/users/users'
import { conflict } from '~server/http/errors'
import { type AdminAction, stillAllowedActor } from '~server/use-cases/users/admin-rules'

export interface InviteInput {
  name: string
  email: string
  role: Role
  phone?: string | null | undefined
}

/**
 * An admin invites a person (decision 0115): the account is made ACTIVE and unverified, with a
 * password nobody knows (the hash of 256 random bits, thrown away), so that nobody can sign in to
 * it, and a sign-in attempt takes the time of any wrong password. The address gets a link to
 * choose a password (7 days, single-use). An address that has an account is a 409: an admin may
 * know who has one.
 */
export async function inviteUser(ctx: AppContext, action: Omit<AdminAction, 'targetId'>, input: InviteInput): Promise<UserRecord> {
  const links = pageLinks(ctx.config.appUrl)
  const unusable = await ctx.hasher.hash(generateToken())
  return commitChange(ctx, async (c) => {
    const actor = await stillAllowedActor(c.trx, action)
    const created = await c.trx
      .insertInto('users')
      .values({
        name: input.name,
        email: input.email,
        phone: input.phone ?? null,
        role: input.role,
        status: 'ACTIVE',
        password_hash: unusable,
        created_at: c.now,
        updated_at: c.now,
      })
      .onConflict((onConflict) => onConflict.column('email').doNothing())
      .returning(userColumns)
      .executeTakeFirst()
    if (!created) throw conflict(adminRuleMessages.emailTaken, 'EMAIL_TAKEN')
    const token = await issueOneTimeToken(c.trx, created.id, 'invitation', c.now)
    await c.record({
      userId: created.id,
      ...actor.entry,
      kind: 'registered',
      activity: `Invited ${created.name} (${created.email})`,
      details: `role: ${created.role}`,
      ip: action.ip,
    })
    await c.emitUser('user.created', created.id)
    await c.mail({ template: 'invitation', lang: action.lang, to: created.email, name: created.name, link: links.acceptInvite(token), invitedBy: actor.name })
    return created
  })
}
