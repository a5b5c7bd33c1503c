import { sql } from 'kysely'
import type { Role } from '~shared/constants'
import type { RoleRule } from '~shared/schemas/identity-providers'
import { revokeUserSessions } from '~server/auth/sessions'
import type { Change } from '~server/change'
import type { VerifiedIdentity } from '~server/federation/openid-connect'
import { countOtherActiveAdmins, lockUserRow, type UserRecord } from '~server/data/users/users'
import { ACTIVE_ADMINS_LOCK } from '~server/use-cases/users/admin-rules'

/**
 * The role a provider's claims give: the first rule whose claim holds its value (a list claim
 * holds it when it contains it), else the provider's default role.
 */
export function roleFromRules(rules: readonly RoleRule[], claims: VerifiedIdentity['claims'], defaultRole: Role): Role {
  for (const rule of rules) {
    if (!Object.hasOwn(claims, rule.claim)) continue
    const value = claims[rule.claim]
    const values = Array.isArray(value) ? value : [value]
    if (values.some((item) => String(item) === rule.value)) return rule.role
  }
  return defaultRole
}

/**
 * `syncRoles`: the rules applied at a sign-in, lowering a role as well as raising it. The change
 * takes effect as any role change does (the account's other sessions end), is recorded "Changed
 * role of X to Y (by <provider>)", and never lowers the last active ADMIN.
 */
export async function syncRole(c: Change, input: { userId: string; role: Role; providerName: string; ip: string }): Promise<UserRecord | undefined> {
  await sql`SELECT pg_advisory_xact_lock(${ACTIVE_ADMINS_LOCK})`.execute(c.trx)
  const user = await lockUserRow(c.trx, input.userId)
  if (!user || user.role === input.role) return user
  if (user.role === 'ADMIN' && user.status === 'ACTIVE' && (await countOtherActiveAdmins(c.trx, user.id)) === 0) return user
  await c.trx.updateTable('users').set({ role: input.role, updated_at: c.now }).where('id', '=', user.id).execute()
  await revokeUserSessions(c.trx, user.id, `role changed by ${input.providerName}`, c.now)
  await c.record({
    userId: user.id,
    kind: 'updated',
    activity: `Changed role of ${user.name} (${user.email}) to ${input.role} (by ${input.providerName})`,
    changes: [{ field: 'role', from: user.role, to: input.role }],
    ip: input.ip,
  })
  await c.emitUser('user.role_changed', user.id, { from: user.role, to: input.role })
  return { ...user, role: input.role }
}
