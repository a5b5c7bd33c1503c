import { sql, type Transaction } from 'kysely'
import type { ActivityKind } from '~server/data/activity/activities'
import { countUserPasskeys } from '~server/data/passkeys/passkeys'
import { userColumns, type UserRecord } from '~server/data/users/users'
import { runNamedStatement } from '~server/db/prepared'
import type { Database, Db, FirstFactor } from '~server/db/types'

/**
 * Rows of an account's second factors (migration 0010): the authenticator-app secret (sealed),
 * the recovery codes (hashed) and the sign-in challenges that wait for a second step.
 */

/** How many passkeys an account has. */
export type PasskeyCounter = (db: Db, userId: string) => Promise<number>

/** The account's passkeys, counted by the passkey rows (`data/passkeys/passkeys.ts`). */
export const countPasskeys: PasskeyCounter = countUserPasskeys

export interface TotpRow {
  secret_sealed: Buffer
  enabled_at: Date | null
  last_used_step: number | null
}

export function findTotp(db: Db, userId: string): Promise<TotpRow | undefined> {
  return db.selectFrom('totp_credentials').select(['secret_sealed', 'enabled_at', 'last_used_step']).where('user_id', '=', userId).executeTakeFirst()
}

/** The row, locked until the caller's transaction ends (a change that depends on the app being on). */
export function lockTotp(trx: Transaction<Database>, userId: string): Promise<Pick<TotpRow, 'enabled_at'> | undefined> {
  return trx.selectFrom('totp_credentials').select(['enabled_at']).where('user_id', '=', userId).forUpdate().executeTakeFirst()
}

/** A setup's secret, waiting for its first code; replaces an earlier setup, never an enabled secret. */
export async function savePendingTotp(db: Db, userId: string, sealed: Buffer, now: Date): Promise<boolean> {
  const row = await db
    .insertInto('totp_credentials')
    .values({ user_id: userId, secret_sealed: sealed, created_at: now, enabled_at: null, last_used_step: null })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({ secret_sealed: sealed, created_at: now, last_used_step: null }).where('totp_credentials.enabled_at', 'is', null),
    )
    .returning('user_id')
    .executeTakeFirst()
  return row !== undefined
}

/** Turns the waiting secret on, its first code's step counted as used. False when none is waiting. */
export async function enableTotp(trx: Db, userId: string, step: number, now: Date): Promise<boolean> {
  const result = await trx
    .updateTable('totp_credentials')
    .set({ enabled_at: now, last_used_step: step })
    .where('user_id', '=', userId)
    .where('enabled_at', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/**
 * Claims an authenticator code's step outside a sign-in (a confirmed action): true when the step
 * is later than the last one used, which it then becomes; false when another request used it first.
 */
export async function claimTotpStep(trx: Db, userId: string, step: number): Promise<boolean> {
  const result = await trx
    .updateTable('totp_credentials')
    .set({ last_used_step: step })
    .where('user_id', '=', userId)
    .where('enabled_at', 'is not', null)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/** Whether the account has this recovery code, unused (its hash). */
export async function hasUnusedRecoveryCode(db: Db, userId: string, codeHash: Buffer): Promise<boolean> {
  const row = await db
    .selectFrom('recovery_codes')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  return row !== undefined
}

/** Uses a recovery code outside a sign-in (a confirmed action): false when it was used meanwhile. */
export async function useRecoveryCode(trx: Db, userId: string, codeHash: Buffer, now: Date): Promise<boolean> {
  const result = await trx
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

export async function countRecoveryCodesLeft(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** A new set of recovery codes; the old set is gone. */
export async function replaceRecoveryCodes(trx: Db, userId: string, hashes: Buffer[], now: Date): Promise<void> {
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute()
  await trx
    .insertInto('recovery_codes')
    .values(hashes.map((code_hash) => ({ code_hash, user_id: userId, created_at: now, used_at: null })))
    .execute()
}

/** Removes the secret, the recovery codes and the waiting sign-ins, and clears `users.mfa_enabled`. */
export async function deleteSecondFactors(trx: Db, userId: string): Promise<boolean> {
  const totp = await trx.deleteFrom('totp_credentials').where('user_id', '=', userId).returning('enabled_at').executeTakeFirst()
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute()
  await trx.deleteFrom('mfa_challenges').where('user_id', '=', userId).execute()
  const user = await trx.updateTable('users').set({ mfa_enabled: false }).where('id', '=', userId).where('mfa_enabled', '=', true).executeTakeFirst()
  return (totp?.enabled_at ?? null) !== null || user.numUpdatedRows === 1n
}

export async function markMfaEnabled(trx: Db, userId: string): Promise<void> {
  await trx.updateTable('users').set({ mfa_enabled: true }).where('id', '=', userId).execute()
}

export async function createMfaChallenge(db: Db, input: { tokenHash: Buffer; userId: string; now: Date; expiresAt: Date; firstFactor: FirstFactor }): Promise<void> {
  await db
    .insertInto('mfa_challenges')
    .values({
      token_hash: input.tokenHash,
      user_id: input.userId,
      created_at: input.now,
      expires_at: input.expiresAt,
      used_at: null,
      first_factor: input.firstFactor,
    })
    .execute()
}

/** A live challenge's account, with its app secret: one read, the second step's only one before its writes. */
export async function findSecondStep(
  db: Db,
  input: { tokenHash: Buffer; now: Date; maxFailures: number },
): Promise<(UserRecord & { secret_sealed: Buffer | null; totp_enabled_at: Date | null; last_used_step: number | null; first_factor: FirstFactor }) | undefined> {
  const query = db
    .selectFrom('mfa_challenges as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .leftJoin('totp_credentials as t', 't.user_id', 'c.user_id')
    .select([...userColumns.map((column) => `u.${column}` as const), 't.secret_sealed', 't.enabled_at as totp_enabled_at', 't.last_used_step', 'c.first_factor'])
    .where('c.token_hash', '=', input.tokenHash)
    .where('c.used_at', 'is', null)
    .where('c.expires_at', '>', input.now)
    .where('c.failures', '<', input.maxFailures)
  return (await runNamedStatement(db, query.compile())).rows[0]
}

export type SecondStepOutcome = 'ok' | 'wrong' | 'dead'

/**
 * The second step's writes, in one call of `use_second_step` (migration 0010): the code claimed
 * and the challenge used, or a wrong code counted with its entry. A code is claimed only when its
 * step is later than the last one used, or when the recovery code is unused: two requests cannot
 * both use one code.
 */
export async function useSecondStep(
  db: Db,
  input: {
    tokenHash: Buffer
    now: Date
    maxFailures: number
    step: number | null
    recoveryHash: Buffer | null
    ip: string | null
    failure: { kind: ActivityKind; activity: string; details: string }
  },
): Promise<SecondStepOutcome> {
  const { rows } = await runNamedStatement(
    db,
    sql<{ outcome: SecondStepOutcome }>`
      SELECT use_second_step(${input.tokenHash}, ${input.now}, ${input.maxFailures}, ${input.step}::integer, ${input.recoveryHash}::bytea,
        ${input.ip}, ${input.failure.kind}, ${input.failure.activity}, ${input.failure.details}) AS outcome`.compile(db),
  )
  return rows[0]!.outcome
}

/** Challenges past their life, for housekeeping. */
export async function deleteExpiredMfaChallenges(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('mfa_challenges').where('expires_at', '<', before).execute()
}
