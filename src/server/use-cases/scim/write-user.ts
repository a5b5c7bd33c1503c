import { revokeUserSessions } from '~server/auth/sessions'
import { retireOneTimeTokens } from '~server/auth/one-time-tokens'
import { generateToken } from '~server/auth/secure-token'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { describeChanges } from '~server/data/users/describe-changes'
import { findUserNameHolder, scimUserColumns } from '~server/data/scim/scim-users'
import { countOtherActiveAdmins, isEmailTaken, isUuid } from '~server/data/users/users'
import { scimNotFound, uniqueness } from '~server/scim/errors'
import type { ScimUserRecord, UserInput } from '~server/scim/user-resource'
import { lastAdmin, lockForScimWrite, type ScimAction, stillAllowedApplication, statusFor, uniqueViolation } from './scim-rules'

/**
 * A directory creates an account (POST /Users): ACTIVE (unless it says `active: false`) and
 * verified, since the directory vouches for the address, with a password nobody knows (the hash of
 * 256 random bits, thrown away, as an invitation's): the person signs in through the company's
 * identity provider, or sets a password through "Forgot password". A `userName` or address another
 * account has is a 409 `uniqueness`.
 */
export async function createScimUser(ctx: AppContext, action: ScimAction, input: UserInput): Promise<ScimUserRecord> {
  const unusable = await ctx.hasher.hash(generateToken())
  try {
    return await commitChange(ctx, async (c) => {
      await lockForScimWrite(c.trx)
      const actor = await stillAllowedApplication(c.trx, action)
      if (await findUserNameHolder(c.trx, input.userName)) throw uniqueness('Another account has that userName')
      if (await isEmailTaken(c.trx, input.email)) throw uniqueness('Another account has that address')
      const status = statusFor(undefined, input.active)
      const created = await c.trx
        .insertInto('users')
        .values({
          name: input.name,
          email: input.email,
          phone: input.phone,
          role: 'CLIENT',
          status,
          password_hash: unusable,
          email_verified_at: c.now,
          created_at: c.now,
          updated_at: c.now,
          scim_user_name: input.userName,
          scim_external_id: input.externalId,
          scim_given_name: input.givenName,
          scim_family_name: input.familyName,
        })
        .returning(scimUserColumns)
        .executeTakeFirstOrThrow()
      await c.record({
        userId: created.id,
        ...actor.entry,
        kind: 'registered',
        activity: `Created by SCIM (${actor.name})`,
        details: `role: CLIENT; status: ${status}`,
        ip: action.ip,
      })
      await c.emitUser('user.created', created.id)
      return created
    })
  } catch (error) {
    throw uniqueViolation(error) ?? error
  }
}

/**
 * A directory changes an account (PUT, PATCH): `next` reads what it asks for from the account as
 * it is, locked for the change. The same rules as an admin's edit (use-cases/users/edit-user.ts):
 * the last active ADMIN stays; a status or address change ends the account's sessions at once (its
 * apps hear a back-channel logout); a new address stays verified (the directory vouches for it),
 * and links mailed to the old one stop working.
 */
export async function updateScimUser(ctx: AppContext, action: ScimAction, id: string, next: (current: ScimUserRecord) => UserInput): Promise<ScimUserRecord> {
  if (!isUuid(id)) throw scimNotFound(`No user ${JSON.stringify(id)}`)
  try {
    return await commitChange(ctx, async (c) => {
      await lockForScimWrite(c.trx)
      const actor = await stillAllowedApplication(c.trx, action)
      const current = await c.trx.selectFrom('users').select(scimUserColumns).where('id', '=', id).forUpdate().executeTakeFirst()
      if (!current) throw scimNotFound(`No user ${JSON.stringify(id)}`)
      const input = next(current)
      const status = statusFor(current.status, input.active)
      const changes = describeChanges(current, { name: input.name, email: input.email, phone: input.phone, status })
      if (current.role === 'ADMIN' && current.status === 'ACTIVE' && status !== 'ACTIVE' && (await countOtherActiveAdmins(c.trx, current.id)) === 0) throw lastAdmin()

      const scimChanges: string[] = []
      if (input.userName !== (current.scim_user_name ?? current.email)) {
        if (input.userName.toLowerCase() !== (current.scim_user_name ?? current.email).toLowerCase()) {
          const holder = await findUserNameHolder(c.trx, input.userName)
          if (holder && holder.id !== current.id) throw uniqueness('Another account has that userName')
        }
        scimChanges.push('userName')
      }
      if (input.externalId !== current.scim_external_id) scimChanges.push('externalId')
      const emailChanged = changes.values.email !== undefined
      if (emailChanged && (await isEmailTaken(c.trx, input.email))) throw uniqueness('Another account has that address')
      const partsChanged = input.givenName !== current.scim_given_name || input.familyName !== current.scim_family_name
      if (changes.fields.length === 0 && scimChanges.length === 0 && !partsChanged) return current

      const updated = await c.trx
        .updateTable('users')
        .set({
          ...changes.values,
          ...(emailChanged ? { email_verified_at: c.now } : {}),
          scim_user_name: input.userName,
          scim_external_id: input.externalId,
          scim_given_name: input.givenName,
          scim_family_name: input.familyName,
          updated_at: c.now,
        })
        .where('id', '=', current.id)
        .returning(scimUserColumns)
        .executeTakeFirstOrThrow()
      if (changes.fields.includes('status') || emailChanged) {
        await revokeUserSessions(c.trx, current.id, `changed by SCIM (${actor.name}): ${changes.fields.join(', ')}`, c.now)
      }
      if (emailChanged) {
        await retireOneTimeTokens(c.trx, current.id, 'reset-password', c.now)
        await retireOneTimeTokens(c.trx, current.id, 'invitation', c.now)
        await retireOneTimeTokens(c.trx, current.id, 'verify-email', c.now)
      }
      if (changes.fields.length > 0 || scimChanges.length > 0) {
        const details = [changes.details, ...scimChanges.map((field) => `${field} changed`)].filter(Boolean).join('; ')
        await c.record({
          userId: current.id,
          ...actor.entry,
          kind: 'updated',
          activity: `Updated user ${current.name} (${current.email})`,
          details: `${details}; by SCIM (${actor.name})`,
          changes: changes.changes,
          ip: action.ip,
        })
      }
      if (changes.values.status !== undefined) await c.emitUser('user.status_changed', current.id, { from: current.status, to: changes.values.status })
      const otherFields = changes.fields.filter((field) => field !== 'status')
      if (otherFields.length > 0) await c.emitUser('user.updated', current.id, { changes: otherFields })
      return updated
    })
  } catch (error) {
    throw uniqueViolation(error) ?? error
  }
}
